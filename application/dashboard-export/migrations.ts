import type { Migration } from '../../platform/database/migrate.ts';

export const dashboardExportMigrations: Migration[] = [
  {
    name: '202611271120_dashboard-export_runs',
    async up(knex) {
      // The export running for each organization, across every process: one row per organization
      // at most, held by a lease so a process that died mid-export frees it when the lease ends.
      // Only the filters' key is kept, never the rows (they carry names and documents).
      await knex.schema.createTable('dashboard_export_runs', (t) => {
        t.text('organization_id').primary();
        t.text('run_id').notNullable();
        t.text('filters_key').notNullable();
        t.timestamp('lease_until', { useTz: true }).notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable('dashboard_export_runs');
    },
  },
];
