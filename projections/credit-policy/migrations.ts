import type { Migration } from '../../platform/database/migrate.ts';

export const creditPolicyMigrations: Migration[] = [
  {
    name: '202611221000_credit-policy_read_tables',
    async up(knex) {
      // The latest version of each policy, for listings and report creation screens.
      await knex.schema.createTable('credit_policy_policies', (t) => {
        t.text('id').primary();
        t.text('organization_id').notNullable();
        t.text('name').notNullable();
        t.text('document_type').notNullable();
        t.integer('version').notNullable();
        t.text('status').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.timestamp('archived_at', { useTz: true });
        t.index(['organization_id', 'name']);
      });
      // Every version, immutable: what a report ran under stays readable.
      await knex.schema.createTable('credit_policy_versions', (t) => {
        t.text('policy_id').notNullable();
        t.integer('version').notNullable();
        t.text('organization_id').notNullable();
        t.jsonb('content').notNullable();
        t.text('created_by').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.primary(['policy_id', 'version']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('credit_policy_versions');
      await knex.schema.dropTable('credit_policy_policies');
    },
  },
];
