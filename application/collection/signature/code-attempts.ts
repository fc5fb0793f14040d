import type { Knex } from 'knex';
import type { Migration } from '../../../platform/database/migrate.ts';

type PartyRef = { collectionId: string; itemId: string; recipientId: string };

/**
 * Tries at a party's one-time code, kept outside the collection stream: a wrong code is a refused
 * command and appends nothing, yet every try must count toward the lockout, across requests and
 * processes. One row per (collection, item, party), for the code sent at `code_sent_at`; a newer
 * code starts again at 1. Ids only, no personal data.
 */
export const signatureCodeAttemptMigrations: Migration[] = [
  {
    name: '202611271001_collection_signature_code_attempts',
    async up(knex) {
      await knex.schema.createTable('collection_signature_code_attempts', (t) => {
        t.text('collection_id').notNullable();
        t.text('item_id').notNullable();
        t.text('recipient_id').notNullable();
        t.text('code_sent_at').notNullable();
        t.integer('attempts').notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.primary(['collection_id', 'item_id', 'recipient_id']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('collection_signature_code_attempts');
    },
  },
  {
    // Tries at any code of an item in one day, whichever party and code: a new code every minute
    // starts its own count again, so without this an item could be tried ~7,200 times a day.
    name: '202611290431_collection_signature_code_daily_attempts',
    async up(knex) {
      await knex.schema.createTable('collection_signature_code_daily_attempts', (t) => {
        t.text('collection_id').notNullable();
        t.text('item_id').notNullable();
        t.text('day').notNullable();
        t.integer('attempts').notNullable();
        t.primary(['collection_id', 'item_id', 'day']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('collection_signature_code_daily_attempts');
    },
  },
];

/**
 * Count one more try at an item's codes on `day` (YYYY-MM-DD) and return the day's count, this
 * try included, in one statement so concurrent tries each get their own number. The item's rows
 * of earlier days go in the same statement: at most one row per item is kept.
 */
export async function countDailyCodeAttempt(db: Knex, ref: Omit<PartyRef, 'recipientId'>, day: string): Promise<number> {
  const { rows } = await db.raw(
    `with earlier as (delete from collection_signature_code_daily_attempts where collection_id = ? and item_id = ? and day < ?)
     insert into collection_signature_code_daily_attempts as a (collection_id, item_id, day, attempts) values (?, ?, ?, 1)
     on conflict (collection_id, item_id, day) do update set attempts = a.attempts + 1
     returning attempts`,
    [ref.collectionId, ref.itemId, day, ref.collectionId, ref.itemId, day],
  );
  return rows[0].attempts;
}

/**
 * Count one more try at the code sent at `codeSentAt` and return its number (1 for the first),
 * in one statement so concurrent tries each get their own number. null when a newer code was
 * sent meanwhile (the caller read a stale state and reads again): an older code never resets
 * the count of a newer one.
 */
export async function countCodeAttempt(db: Knex, ref: PartyRef, codeSentAt: string): Promise<number | null> {
  const { rows } = await db.raw(
    `insert into collection_signature_code_attempts as a (collection_id, item_id, recipient_id, code_sent_at, attempts, updated_at)
       values (?, ?, ?, ?, 1, now())
     on conflict (collection_id, item_id, recipient_id) do update
       set attempts = case when a.code_sent_at = excluded.code_sent_at then a.attempts + 1 else 1 end,
           code_sent_at = excluded.code_sent_at, updated_at = now()
       where a.code_sent_at <= excluded.code_sent_at
     returning attempts`,
    [ref.collectionId, ref.itemId, ref.recipientId, codeSentAt],
  );
  return rows[0]?.attempts ?? null;
}

/** The contact is verified: its count is no longer needed. */
export async function forgetCodeAttempts(db: Knex, ref: PartyRef): Promise<void> {
  await db('collection_signature_code_attempts').where({ collection_id: ref.collectionId, item_id: ref.itemId, recipient_id: ref.recipientId }).delete();
}
