import type { Knex } from 'knex';
import type { Migration } from './database/migrate.ts';

const TABLE = 'http_idempotency_keys';

export const idempotencyMigrations: Migration[] = [
  {
    name: '202611231020_http_idempotency_keys',
    async up(knex) {
      await knex.schema.createTable(TABLE, (t) => {
        t.text('credential_id').notNullable();
        // A hash of the caller's key, which alone can open the stored reply.
        t.text('key_hash').notNullable();
        t.text('fingerprint').notNullable();
        // Null while the first request is in flight.
        t.integer('status');
        t.binary('reply');
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable().index();
        t.primary(['credential_id', 'key_hash']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable(TABLE);
    },
  },
];

/** A finished request: its status, and its reply as sealed bytes the caller's layer can open. */
export interface StoredReply {
  status: number;
  sealed: Buffer;
}

export type Claim = { kind: 'claimed' } | { kind: 'replay'; reply: StoredReply } | { kind: 'in-flight' } | { kind: 'other-request' };

export interface ClaimRequest {
  credentialId: string;
  /** A hash of the Idempotency-Key: the key itself stays with the caller. */
  keyHash: string;
  /** What the request asks (route and body): the same key may only ever mean one request. */
  fingerprint: string;
  now: Date;
  ttlMs: number;
  /** A claim older than this without a reply belongs to a process that died: it is taken over. */
  abandonedAfterMs: number;
}

/** Expired keys are purged a few at a time by the requests that create keys: no job to run. */
const PURGE_BATCH = 100;

/**
 * Replies kept per client credential and Idempotency-Key. The primary key makes the claim
 * atomic: of two requests with one key, exactly one inserts, whichever process serves it.
 */
export class IdempotencyStore {
  constructor(private readonly db: Knex) {}

  async claim(request: ClaimRequest): Promise<Claim> {
    const { credentialId, keyHash, fingerprint, now } = request;
    // Two rounds: the second follows the removal of an expired or abandoned row.
    for (let round = 0; round < 2; round++) {
      const inserted = await this.db(TABLE)
        .insert({ credential_id: credentialId, key_hash: keyHash, fingerprint, created_at: now, expires_at: new Date(now.getTime() + request.ttlMs) })
        .onConflict(['credential_id', 'key_hash'])
        .ignore()
        .returning('key_hash');
      if (inserted.length) {
        await this.purgeExpired(now);
        return { kind: 'claimed' };
      }
      const row = await this.db(TABLE).where({ credential_id: credentialId, key_hash: keyHash }).first();
      if (!row) continue;
      const abandoned = row.status === null && row.created_at.getTime() + request.abandonedAfterMs <= now.getTime();
      if (row.expires_at.getTime() <= now.getTime() || abandoned) {
        // Only that very row: another request may have claimed the key again meanwhile.
        await this.db(TABLE).where({ credential_id: credentialId, key_hash: keyHash, created_at: row.created_at }).delete();
        continue;
      }
      if (row.fingerprint !== fingerprint) return { kind: 'other-request' };
      if (row.status === null) return { kind: 'in-flight' };
      return { kind: 'replay', reply: { status: row.status, sealed: row.reply } };
    }
    return { kind: 'in-flight' };
  }

  async complete(credentialId: string, keyHash: string, reply: StoredReply): Promise<void> {
    await this.db(TABLE).where({ credential_id: credentialId, key_hash: keyHash }).update({ status: reply.status, reply: reply.sealed });
  }

  /** The request failed: nothing was done, so the key is free for a retry. */
  async release(credentialId: string, keyHash: string): Promise<void> {
    await this.db(TABLE).where({ credential_id: credentialId, key_hash: keyHash }).whereNull('status').delete();
  }

  private async purgeExpired(now: Date): Promise<void> {
    await this.db.raw(`delete from ${TABLE} where ctid in (select ctid from ${TABLE} where expires_at <= ? limit ${PURGE_BATCH})`, [now]);
  }
}
