import type { Knex } from 'knex';
import type { Migration } from './database/migrate.ts';

const TABLE = 'http_idempotency_keys';

export const idempotencyMigrations: Migration[] = [
  {
    name: '202611231020_http_idempotency_keys',
    async up(knex) {
      await knex.schema.createTable(TABLE, (t) => {
        t.text('credential_id').notNullable();
        t.text('key').notNullable();
        t.text('fingerprint').notNullable();
        // Null while the first request is in flight.
        t.integer('status');
        t.jsonb('body');
        t.jsonb('headers');
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable().index();
        t.primary(['credential_id', 'key']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable(TABLE);
    },
  },
];

export interface StoredReply {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export type Claim = { kind: 'claimed' } | { kind: 'replay'; reply: StoredReply } | { kind: 'in-flight' } | { kind: 'other-request' };

export interface ClaimRequest {
  credentialId: string;
  key: string;
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
    const { credentialId, key, fingerprint, now } = request;
    // Two rounds: the second follows the removal of an expired or abandoned row.
    for (let round = 0; round < 2; round++) {
      const inserted = await this.db(TABLE)
        .insert({ credential_id: credentialId, key, fingerprint, created_at: now, expires_at: new Date(now.getTime() + request.ttlMs) })
        .onConflict(['credential_id', 'key'])
        .ignore()
        .returning('key');
      if (inserted.length) {
        await this.purgeExpired(now);
        return { kind: 'claimed' };
      }
      const row = await this.db(TABLE).where({ credential_id: credentialId, key }).first();
      if (!row) continue;
      const abandoned = row.status === null && row.created_at.getTime() + request.abandonedAfterMs <= now.getTime();
      if (row.expires_at.getTime() <= now.getTime() || abandoned) {
        // Only that very row: another request may have claimed the key again meanwhile.
        await this.db(TABLE).where({ credential_id: credentialId, key, created_at: row.created_at }).delete();
        continue;
      }
      if (row.fingerprint !== fingerprint) return { kind: 'other-request' };
      if (row.status === null) return { kind: 'in-flight' };
      return { kind: 'replay', reply: { status: row.status, body: row.body, headers: row.headers ?? {} } };
    }
    return { kind: 'in-flight' };
  }

  async complete(credentialId: string, key: string, reply: StoredReply): Promise<void> {
    await this.db(TABLE)
      .where({ credential_id: credentialId, key })
      .update({ status: reply.status, body: JSON.stringify(reply.body ?? null), headers: JSON.stringify(reply.headers) });
  }

  /** The request failed: nothing was done, so the key is free for a retry. */
  async release(credentialId: string, key: string): Promise<void> {
    await this.db(TABLE).where({ credential_id: credentialId, key }).whereNull('status').delete();
  }

  private async purgeExpired(now: Date): Promise<void> {
    await this.db.raw(`delete from ${TABLE} where ctid in (select ctid from ${TABLE} where expires_at <= ? limit ${PURGE_BATCH})`, [now]);
  }
}
