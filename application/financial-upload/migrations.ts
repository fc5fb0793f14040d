import type { Migration } from '../../platform/database/migrate.ts';

/**
 * Upload slots handed out by presign: what complete needs to know of a key (the file name the
 * client gave, the declared size) and the proof that this service issued it. Not events: an
 * unused slot means nothing happened; the batch that is accepted is the event.
 */
export const financialUploadMigrations: Migration[] = [
  {
    name: '202611271040_financial_upload_slots',
    async up(knex) {
      await knex.schema.createTable('financial_upload_slots', (t) => {
        t.text('key').primary();
        t.text('organization_id').notNullable();
        t.text('report_id').notNullable();
        t.text('file_name').notNullable();
        t.bigInteger('size_bytes').notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.index(['organization_id', 'report_id']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('financial_upload_slots');
    },
  },
];
