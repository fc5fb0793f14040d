import type { Migration } from '../../platform/database/migrate.ts';

export const pricingMigrations: Migration[] = [
  {
    name: '202611231100_pricing_market_indexes',
    async up(knex) {
      await knex.schema.createTable('pricing_reference_indexes', (t) => {
        t.text('index_key').primary();
        t.text('percent_year').notNullable();
        t.text('date').notNullable();
        t.text('source').notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
      });
      await knex.schema.createTable('pricing_organization_indexes', (t) => {
        t.text('organization_id').notNullable();
        t.text('index_key').notNullable();
        t.text('percent_year').notNullable();
        t.text('date').notNullable();
        t.text('updated_by').notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.primary(['organization_id', 'index_key']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('pricing_organization_indexes');
      await knex.schema.dropTable('pricing_reference_indexes');
    },
  },
];
