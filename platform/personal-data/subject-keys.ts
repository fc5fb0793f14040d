import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { SecretBox } from '../secrets/secret-box.ts';

export interface SubjectKey {
  keyId: string;
  key: Buffer;
}

/**
 * The per-subject keys, kept sealed with SEALING_KEYS so a copy of the database alone opens
 * nothing. Not cached: a key erased by another process must stop opening at once.
 */
export class SubjectKeys {
  constructor(
    private readonly db: Knex,
    private readonly box: SecretBox,
  ) {}

  private unseal(keyId: string, sealed: string): Buffer {
    return Buffer.from(this.box.open(sealed, keyId), 'base64url');
  }

  private async live(subjectIds: readonly string[]): Promise<Map<string, SubjectKey>> {
    const rows: Array<{ key_id: string; subject_id: string; sealed_key: string }> = await this.db('subject_keys')
      .whereIn('subject_id', subjectIds)
      .whereNull('erased_at')
      .select('key_id', 'subject_id', 'sealed_key');
    return new Map(rows.map((r) => [r.subject_id, { keyId: r.key_id, key: this.unseal(r.key_id, r.sealed_key) }]));
  }

  /** The live key of each subject, created for those that have none (concurrent creators agree). */
  async forSubjects(subjectIds: readonly string[], now: Date): Promise<Map<string, SubjectKey>> {
    const keys = await this.live(subjectIds);
    const missing = subjectIds.filter((id) => !keys.has(id));
    if (missing.length === 0) return keys;
    const raw = new Map<string, Buffer>();
    const fresh = missing.map((subject_id) => {
      const key_id = randomUUID();
      const key = randomBytes(32);
      raw.set(key_id, key);
      return { key_id, subject_id, sealed_key: this.box.seal(key.toString('base64url'), key_id), created_at: now };
    });
    // The partial unique index lets one live key per subject win; the rows inserted come back
    // (no second read for a new subject, the usual case), and only a loser reads the winner's.
    const inserted: Array<{ key_id: string; subject_id: string }> = await this.db('subject_keys').insert(fresh).onConflict().ignore().returning(['key_id', 'subject_id']);
    for (const r of inserted) keys.set(r.subject_id, { keyId: r.key_id, key: raw.get(r.key_id)! });
    const lost = missing.filter((id) => !keys.has(id));
    if (lost.length) for (const [id, key] of await this.live(lost)) keys.set(id, key);
    return keys;
  }

  /** Keys by id; an erased or unknown key is absent. */
  async byIds(keyIds: readonly string[]): Promise<Map<string, Buffer>> {
    const rows: Array<{ key_id: string; sealed_key: string }> = await this.db('subject_keys').whereIn('key_id', keyIds).whereNotNull('sealed_key').select('key_id', 'sealed_key');
    return new Map(rows.map((r) => [r.key_id, this.unseal(r.key_id, r.sealed_key)]));
  }

  /** Delete every key of the subject; returns how many were live. */
  async erase(subjectId: string, at: Date): Promise<number> {
    return this.db('subject_keys').where({ subject_id: subjectId }).whereNull('erased_at').update({ sealed_key: null, erased_at: at });
  }
}
