import type { Migration } from '../../platform/database/migrate.ts';
import { MEASURES } from './contribution.ts';
import { DASHBOARD_TABLES, DURATIONS_KEY, GRAINS, SUMS_KEY, durationsTable, shiftRollups, sumsTable, type Grain } from './rollup.ts';

export const dashboardMigrations: Migration[] = [
  {
    name: '202611271100_dashboard_rollups',
    async up(knex) {
      // Sums of proposal_facts per organization, dimension (or 'all'), Brasília creation day or
      // week, key and status (and rejection step): what the dashboard reads (docs/dashboard.md);
      // and proposals per whole days between two of their facts (medians and p90 without the rows).
      for (const grain of Object.keys(GRAINS) as Grain[]) {
        await knex.schema.createTable(sumsTable(grain), (t) => {
          for (const column of ['organization_id', 'dim']) t.text(column).notNullable();
          t.date('day').notNullable();
          for (const column of ['key', 'status', 'rejection_step']) t.text(column).notNullable();
          for (const m of MEASURES) t.bigInteger(m.column).notNullable();
          t.primary(SUMS_KEY);
        });
        await knex.schema.createTable(durationsTable(grain), (t) => {
          for (const column of ['organization_id', 'dim']) t.text(column).notNullable();
          t.date('day').notNullable();
          for (const column of ['key', 'status', 'pair']) t.text(column).notNullable();
          t.integer('days').notNullable();
          t.bigInteger('n').notNullable();
          t.primary(DURATIONS_KEY);
        });
      }
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
      for (const table of DASHBOARD_TABLES) await knex.schema.dropTable(table);
    },
  },
  {
    // Open proposals (a few of all) are read on every dashboard, period or not: this index holds
    // every column those blocks read, so they are read from it alone (an index-only scan). Its
    // statuses are every status openStatuses (domain/dashboard/sla.ts) can count as open.
    name: '202611281210_dashboard_open_proposals_index',
    async up(knex) {
      await knex.raw(
        `create index proposal_facts_open on proposal_facts (organization_id, status, created_at)
         include (status_changed_at, id, origin, correspondent_id, agent_id, product_key, portfolio_id, entity_type)
         where status in ('DRAFT', 'IN_ANALYSIS', 'WAITING_OPERATOR', 'WAITING_CUSTOMER')`,
      );
    },
    async down(knex) {
      await knex.raw('drop index proposal_facts_open');
    },
  },
];
