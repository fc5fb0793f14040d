import type { Migration } from '../../platform/database/migrate.ts';

export const collectionTemplateMigrations: Migration[] = [
  {
    name: '202611231610_collection-template_read_tables',
    async up(knex) {
      // The organization's own templates at their latest version (platform ones live in code).
      await knex.schema.createTable('collection_template_templates', (t) => {
        t.text('template_id').primary();
        t.text('organization_id').notNullable();
        t.text('slug').notNullable();
        t.text('name').notNullable();
        t.integer('version').notNullable();
        t.boolean('enabled').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.unique(['organization_id', 'slug']);
      });
      // Every version, immutable.
      await knex.schema.createTable('collection_template_versions', (t) => {
        t.text('template_id').notNullable();
        t.integer('version').notNullable();
        t.text('organization_id').notNullable();
        t.jsonb('content').notNullable();
        t.text('created_by').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.primary(['template_id', 'version']);
      });
      // Platform templates switched by an organization (no row: on).
      await knex.schema.createTable('collection_template_switches', (t) => {
        t.text('organization_id').notNullable();
        t.text('slug').notNullable();
        t.boolean('enabled').notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.primary(['organization_id', 'slug']);
      });
      // One row per collection made from a template: the listing's metrics.
      await knex.schema.createTable('collection_template_usage', (t) => {
        t.text('collection_id').primary();
        t.text('organization_id').notNullable();
        t.text('slug').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('completed_at', { useTz: true });
        t.index(['organization_id', 'slug']);
      });
    },
    async down(knex) {
      for (const table of ['collection_template_usage', 'collection_template_switches', 'collection_template_versions', 'collection_template_templates']) {
        await knex.schema.dropTable(table);
      }
    },
  },
];
