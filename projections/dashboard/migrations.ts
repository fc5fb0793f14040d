import type { Migration } from '../../platform/database/migrate.ts';
import { MEASURES } from './contribution.ts';
import { shiftRollups } from './rollup.ts';

export const dashboardMigrations: Migration[] = [
  {
    name: '202611271100_dashboard_rollups',
    async up(knex) {
      // Sums of proposal_facts per organization, dimension (or 'all'), Brasília creation day, key,
      // status (and rejection step): what the dashboard reads for whole days (docs/dashboard.md).
      await knex.schema.createTable('dashboard_daily', (t) => {
        t.text('organization_id').notNullable();
        t.text('dim').notNullable();
        t.date('day').notNullable();
        t.text('key').notNullable();
        t.text('status').notNullable();
        t.text('rejection_step').notNullable();
        for (const m of MEASURES) t.bigInteger(m.column).notNullable();
        t.primary(['organization_id', 'dim', 'day', 'key', 'status', 'rejection_step']);
      });
      // Proposals per whole days between two of their facts (medians and p90 without the rows).
      await knex.schema.createTable('dashboard_durations', (t) => {
        t.text('organization_id').notNullable();
        t.text('dim').notNullable();
        t.date('day').notNullable();
        t.text('key').notNullable();
        t.text('status').notNullable();
        t.text('pair').notNullable();
        t.integer('days').notNullable();
        t.bigInteger('n').notNullable();
        t.primary(['organization_id', 'dim', 'day', 'key', 'status', 'pair', 'days']);
      });
      // Open proposals (openNow, outOfSla, aging) are read from the facts by status; filtered
      // dashboards read the facts of the period by one filter's index.
      await knex.raw('create index proposal_facts_org_status_created on proposal_facts (organization_id, status, created_at)');
      await knex.raw('create index proposal_facts_org_product_created on proposal_facts (organization_id, product_key, created_at)');
      await knex.raw('create index proposal_facts_org_correspondent_created on proposal_facts (organization_id, correspondent_id, created_at)');
      await knex.raw('create index proposal_facts_org_agent_created on proposal_facts (organization_id, agent_id, created_at)');
      await knex.raw('create index proposal_facts_org_portfolio_created on proposal_facts (organization_id, portfolio_id, created_at)');
      // The proposals that exist already.
      await shiftRollups(knex, null, 1);
    },
    async down(knex) {
      for (const index of ['status', 'product', 'correspondent', 'agent', 'portfolio']) await knex.raw(`drop index proposal_facts_org_${index}_created`);
      await knex.schema.dropTable('dashboard_durations');
      await knex.schema.dropTable('dashboard_daily');
    },
  },
];
