import type { Migration } from '../database/migrate.ts';

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
];
