import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { SecretBox } from '../secrets/secret-box.ts';
import { keyCacheFor, type KeyCache } from './key-cache.ts';

export interface SubjectKey {
  keyId: string;
  key: Buffer;
}

/**
 * The per-subject keys, kept sealed with SEALING_KEYS so a copy of the database alone opens
 * nothing. Cached per process only while an erasure anywhere is heard at once (key-cache.ts).
 */
export class SubjectKeys {
  private readonly cache: KeyCache;

  constructor(
    private readonly db: Knex,
    private readonly box: SecretBox,
  ) {
    this.cache = keyCacheFor(db);
  }

  /** Stop listening for erasures (the process is stopping). */
  close(): Promise<void> {
    return this.cache.close();
  }

  /**
   * The plain JSON of a sealed field whose key `byIds` has just returned (so live), deciphered by
   * `decipher` unless this process opened the same field lately (KeyCache.plain).
   */
  plainOf(field: string, sealed: string, decipher: () => string): string {
    const known = this.cache.plain(field, sealed);
    if (known !== undefined) return known;
    const generation = this.cache.begin();
    const plain = decipher();
    this.cache.rememberPlain(generation, field, sealed, plain);
    return plain;
  }

  private unseal(keyId: string, sealed: string): Buffer {
    return Buffer.from(this.box.open(sealed, keyId), 'base64url');
  }

  private async live(subjectIds: readonly string[]): Promise<Map<string, SubjectKey>> {
    const keys = new Map<string, SubjectKey>();
    const cached = await this.cache.ready();
    const generation = this.cache.begin();
    const missing: string[] = [];
    for (const id of subjectIds) {
      const hit = cached ? this.cache.live(id) : undefined;
      if (hit) keys.set(id, hit);
      else missing.push(id);
    }
    if (!missing.length) return keys;
    const rows: Array<{ key_id: string; subject_id: string; sealed_key: string }> = await this.db('subject_keys')
      .whereIn('subject_id', missing)
      .whereNull('erased_at')
      .select('key_id', 'subject_id', 'sealed_key');
    for (const r of rows) keys.set(r.subject_id, { keyId: r.key_id, key: this.unseal(r.key_id, r.sealed_key) });
    this.cache.remember(
      generation,
      [],
      rows.map((r) => [r.subject_id, keys.get(r.subject_id)!]),
    );
    return keys;
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
    const generation = this.cache.begin();
    const inserted: Array<{ key_id: string; subject_id: string }> = await this.db('subject_keys').insert(fresh).onConflict().ignore().returning(['key_id', 'subject_id']);
    for (const r of inserted) keys.set(r.subject_id, { keyId: r.key_id, key: raw.get(r.key_id)! });
    this.cache.remember(
      generation,
      [],
      inserted.map((r) => [r.subject_id, keys.get(r.subject_id)!]),
    );
    const lost = missing.filter((id) => !keys.has(id));
    if (lost.length) for (const [id, key] of await this.live(lost)) keys.set(id, key);
    return keys;
  }

  /** Keys by id; an erased or unknown key is absent. */
  async byIds(keyIds: readonly string[]): Promise<Map<string, Buffer>> {
    const keys = new Map<string, Buffer>();
    const cached = await this.cache.ready();
    const generation = this.cache.begin();
    const missing: string[] = [];
    for (const keyId of keyIds) {
      const key = cached ? this.cache.key(keyId) : undefined;
      if (key) keys.set(keyId, key);
      else if (key === undefined) missing.push(keyId);
    }
    if (!missing.length) return keys;
    // Erased rows too (sealed_key null): erased for good, so remembered as such.
    const rows: Array<{ key_id: string; sealed_key: string | null }> = await this.db('subject_keys').whereIn('key_id', missing).select('key_id', 'sealed_key');
    const read = rows.map((r): [string, Buffer | null] => [r.key_id, r.sealed_key === null ? null : this.unseal(r.key_id, r.sealed_key)]);
    for (const [keyId, key] of read) if (key) keys.set(keyId, key);
    this.cache.remember(generation, read);
    return keys;
  }

  /** Delete every key of the subject; returns how many were live. */
  async erase(subjectId: string, at: Date): Promise<number> {
    // Dropped before and after: no lookup of this process opens it once this returns.
    this.cache.erased(subjectId);
    const erased: Array<{ key_id: string }> = await this.db('subject_keys').where({ subject_id: subjectId }).whereNull('erased_at').update({ sealed_key: null, erased_at: at }).returning('key_id');
    for (const { key_id } of erased) this.cache.erased(subjectId, key_id);
    return erased.length;
  }
}
