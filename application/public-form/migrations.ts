import type { Migration } from '../../platform/database/migrate.ts';

/**
 * The public form's counters. They are not events: the spec says the public form has none of its
 * own and that switching its link off for the day emits nothing. Addresses are kept as hashes.
 */
export const publicFormMigrations: Migration[] = [
  {
    name: '202611261040_public_form_counters',
    async up(knex) {
      // Collections opened through public forms per organization and Brasília day: the daily ceiling.
      await knex.schema.createTable('public_form_daily', (t) => {
        t.text('organization_id').notNullable();
        t.date('day').notNullable();
        t.integer('count').notNullable();
        t.primary(['organization_id', 'day']);
      });
      // Submissions per organization, client address (hashed) and hour: the per-address limit.
      await knex.schema.createTable('public_form_addresses', (t) => {
        t.text('organization_id').notNullable();
        t.text('address_hash').notNullable();
        t.timestamp('window_start', { useTz: true }).notNullable();
        t.integer('count').notNullable();
        t.primary(['organization_id', 'address_hash', 'window_start']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('public_form_addresses');
      await knex.schema.dropTable('public_form_daily');
    },
  },
];
