import type { Migration } from '../../platform/database/migrate.ts';

export const committeeMigrations: Migration[] = [
  {
    name: '202611271030_committee_deliberations',
    async up(knex) {
      // One row per deliberation; a report's latest is the newest row (a rerun adds one).
      await knex.schema.createTable('committee_deliberations', (t) => {
        t.text('id').primary();
        t.text('organization_id').notNullable();
        t.text('report_id').notNullable();
        t.text('policy_id').notNullable();
        t.integer('policy_version').notNullable();
        t.text('trigger').notNullable();
        t.text('status').notNullable();
        t.text('prompt_version').notNullable();
        t.boolean('custom_prompts').notNullable();
        t.jsonb('prompt_versions_by_agent').notNullable();
        // Opinions and their call usage by agent: a RUNNING deliberation shows what is in so far.
        t.jsonb('agent_opinions').notNullable();
        t.jsonb('usage_by_agent').notNullable();
        t.jsonb('synthesis');
        t.text('final_recommendation');
        t.double('confidence');
        t.jsonb('totals');
        t.jsonb('model_versions');
        t.integer('duration_ms');
        t.text('error');
        // Where DeliberationStarted sits in $all: a start the runner's checkpoint passed while still RUNNING was given up on.
        t.bigInteger('started_commit').notNullable();
        t.bigInteger('started_prepare').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.index(['organization_id', 'report_id', 'created_at']);
        t.index(['status', 'updated_at']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('committee_deliberations');
    },
  },
];
