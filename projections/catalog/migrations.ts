import type { Migration } from '../../platform/database/migrate.ts';

export const catalogMigrations: Migration[] = [
  {
    name: '202611231000_catalog_read_tables',
    async up(knex) {
      await knex.schema.createTable('catalog_products', (t) => {
        t.text('id').primary();
        t.text('organization_id').notNullable();
        t.text('key').notNullable();
        t.integer('version').notNullable();
        t.jsonb('content').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.unique(['organization_id', 'key']);
      });
      await knex.schema.createTable('catalog_portfolios', (t) => {
        t.text('id').primary();
        t.text('organization_id').notNullable();
        t.jsonb('content').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.index(['organization_id']);
      });
      await knex.schema.createTable('catalog_proposal_settings', (t) => {
        t.text('organization_id').primary();
        t.jsonb('settings').notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable('catalog_proposal_settings');
      await knex.schema.dropTable('catalog_portfolios');
      await knex.schema.dropTable('catalog_products');
    },
  },
];
