import type { Migration } from '../database/migrate.ts';
import { KEYS_ERASED_CHANNEL } from './key-cache.ts';

export const personalDataMigrations: Migration[] = [
  {
    name: '202611231000_personal_data_subject_keys',
    async up(knex) {
      // One live key per subject; erasing deletes the key material and keeps the row as the record
      // of the erasure. A later report on the same person gets a new key (a new row).
      await knex.schema.createTable('subject_keys', (t) => {
        t.uuid('key_id').primary();
        t.text('subject_id').notNullable();
        /** The key sealed with SEALING_KEYS; null once erased. */
        t.text('sealed_key');
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('erased_at', { useTz: true });
      });
      await knex.raw('create unique index subject_keys_live on subject_keys (subject_id) where erased_at is null');
    },
    async down(knex) {
      await knex.schema.dropTable('subject_keys');
    },
  },
  {
    // Every process caches opened keys (key-cache.ts) and listens here: an erasure, however it is
    // made, reaches them when it commits. Erasures are rare, so NOTIFY's commit lock costs nothing.
    name: '202611271010_personal_data_erasure_notify',
    async up(knex) {
      await knex.raw(`
        create function subject_keys_erased_notify() returns trigger language plpgsql as $$
        declare
          v_row subject_keys;
        begin
          v_row := case when tg_op = 'DELETE' then old else new end;
          perform pg_notify('${KEYS_ERASED_CHANNEL}', v_row.subject_id || ':' || v_row.key_id);
          return null;
        end
        $$`);
      await knex.raw(`
        create trigger subject_keys_erased after update on subject_keys for each row
          when (new.sealed_key is null and old.sealed_key is not null)
          execute function subject_keys_erased_notify()`);
      await knex.raw(`create trigger subject_keys_deleted after delete on subject_keys for each row execute function subject_keys_erased_notify()`);
    },
    async down(knex) {
      await knex.raw('drop trigger if exists subject_keys_deleted on subject_keys');
      await knex.raw('drop trigger if exists subject_keys_erased on subject_keys');
      await knex.raw('drop function if exists subject_keys_erased_notify()');
    },
  },
];
