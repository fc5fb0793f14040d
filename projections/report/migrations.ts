import type { Migration } from '../../platform/database/migrate.ts';

export const reportMigrations: Migration[] = [
  {
    name: '202611221000_report_read_tables',
    async up(knex) {
      await knex.schema.createTable('report_reports', (t) => {
        t.text('id').primary();
        t.text('organization_id').notNullable();
        t.text('user_id').notNullable();
        t.text('document').notNullable();
        t.text('document_type').notNullable();
        t.text('external_id');
        t.integer('year_month_day').notNullable();
        t.text('policy_id').notNullable();
        t.integer('policy_version').notNullable();
        t.text('policy_name').notNullable();
        t.text('status').notNullable();
        t.text('policy_status').notNullable();
        t.integer('score');
        t.text('commentary');
        t.text('analyst_id');
        t.text('previous_analyst_id');
        t.text('analyst_name');
        t.text('policy_error_status_applied');
        t.text('ran_without_scr_reason');
        t.jsonb('steps').notNullable();
        t.boolean('is_finalized').notNullable();
        t.timestamp('finalized_at', { useTz: true });
        t.jsonb('integration_types').notNullable();
        t.boolean('verified').notNullable();
        t.jsonb('exports').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.index(['organization_id', 'created_at']);
        t.index(['organization_id', 'document']);
      });
      await knex.schema.createTable('report_sections', (t) => {
        t.text('id').primary();
        t.text('report_id').notNullable();
        t.text('organization_id').notNullable();
        t.integer('position').notNullable();
        t.text('type').notNullable();
        t.text('status').notNullable();
        t.jsonb('details');
        t.jsonb('selected_integrations').notNullable();
        t.jsonb('errors').notNullable();
        t.integer('integration_count').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.timestamp('finished_at', { useTz: true });
        t.index(['report_id', 'position']);
      });
      // The history of decisions, automatic and manual: one row per ReportDecided.
      await knex.schema.createTable('report_decisions', (t) => {
        t.uuid('event_id').primary();
        t.text('report_id').notNullable();
        t.text('organization_id').notNullable();
        t.text('kind').notNullable();
        t.text('decided_by').notNullable();
        t.text('decision').notNullable();
        t.text('previous_status').notNullable();
        t.integer('score');
        t.text('analyst_id');
        t.text('analyst_name');
        t.text('previous_analyst_id');
        t.text('commentary');
        t.timestamp('decided_at', { useTz: true }).notNullable();
        t.index(['report_id', 'decided_at']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('report_decisions');
      await knex.schema.dropTable('report_sections');
      await knex.schema.dropTable('report_reports');
    },
  },
  {
    // Whose personal data the report holds (the id the event store sealed it under), so an
    // erasure reaches every report of that person.
    name: '202611231010_report_subject',
    async up(knex) {
      await knex.schema.alterTable('report_reports', (t) => {
        t.text('subject_id');
        t.index(['subject_id']);
      });
    },
    async down(knex) {
      await knex.schema.alterTable('report_reports', (t) => t.dropColumn('subject_id'));
    },
  },
  {
    // GET /v2/report: each filter with the list's order (created_at desc, id desc), so a page is an
    // index range read, not a sort of the organization's reports. They cover the two indexes they replace.
    name: '202611251000_report_list_indexes',
    async up(knex) {
      await knex.schema.alterTable('report_reports', (t) => {
        t.dropIndex(['organization_id', 'created_at']);
        t.dropIndex(['organization_id', 'document']);
        t.index(['organization_id', 'created_at', 'id'], 'report_reports_list_index');
        t.index(['organization_id', 'document', 'created_at', 'id'], 'report_reports_list_document_index');
        t.index(['organization_id', 'status', 'created_at', 'id'], 'report_reports_list_status_index');
      });
      await knex.raw('create index report_reports_list_external_id_index on report_reports (organization_id, external_id, created_at, id) where external_id is not null');
    },
    async down(knex) {
      await knex.raw('drop index report_reports_list_external_id_index');
      await knex.schema.alterTable('report_reports', (t) => {
        t.dropIndex([], 'report_reports_list_status_index');
        t.dropIndex([], 'report_reports_list_document_index');
        t.dropIndex([], 'report_reports_list_index');
        t.index(['organization_id', 'document']);
        t.index(['organization_id', 'created_at']);
      });
    },
  },
  {
    // New scores stay within the policy bounds (domain/credit-policy/policy.ts SCORE_BOUNDS),
    // which an int holds. Events decided before the bounds can carry any finite JSON number
    // (a policy of base 3e9 or maximum 1e308 was accepted), and a replay must store them rather
    // than stop the projection for every tenant: a double keeps each exactly as its event has it.
    name: '202611231030_report_score_double',
    async up(knex) {
      await knex.raw('alter table report_reports alter column score type double precision');
      await knex.raw('alter table report_decisions alter column score type double precision');
    },
    async down(knex) {
      await knex.raw('alter table report_decisions alter column score type integer using round(score)::integer');
      await knex.raw('alter table report_reports alter column score type integer using round(score)::integer');
    },
  },
  {
    // A report's product: the product of the proposal it was run for ({id, key, name}), from ReportRequested.
    name: '202611290500_report_product',
    async up(knex) {
      await knex.schema.alterTable('report_reports', (t) => t.jsonb('product'));
    },
    async down(knex) {
      await knex.schema.alterTable('report_reports', (t) => t.dropColumn('product'));
    },
  },
  {
    // The committee's decision taken on the offline model (ReportDecided.sandbox): marked on the
    // report's current decision and on its row in the history. Events before the flag were real.
    name: '202611290520_report_sandbox_decision',
    async up(knex) {
      await knex.schema.alterTable('report_reports', (t) => t.boolean('sandbox_decision').notNullable().defaultTo(false));
      await knex.schema.alterTable('report_decisions', (t) => t.boolean('sandbox').notNullable().defaultTo(false));
    },
    async down(knex) {
      await knex.schema.alterTable('report_decisions', (t) => t.dropColumn('sandbox'));
      await knex.schema.alterTable('report_reports', (t) => t.dropColumn('sandbox_decision'));
    },
  },
  {
    // Provenance (issue 37): a report holding a sandbox result, and each section's and decision's
    // provider. Rows written before learn what their integrations say here and the rest on a
    // rebuild; the events they come from are unchanged.
    name: '202611300500_report_provenance',
    async up(knex) {
      await knex.schema.alterTable('report_reports', (t) => t.boolean('sandbox').notNullable().defaultTo(false));
      await knex.schema.alterTable('report_sections', (t) => t.jsonb('provenance'));
      await knex.schema.alterTable('report_decisions', (t) => t.jsonb('provenance'));
      await knex.raw(`update report_reports set sandbox = true where integration_types @> '["SANDBOX"]'`);
      await knex.raw(`
        update report_sections s set provenance = jsonb_build_object(
          'provider', case when s.selected_integrations @> '["SANDBOX"]' then 'SANDBOX' else s.selected_integrations->>0 end,
          'sandbox', case when r.sandbox then to_jsonb(true) else 'null'::jsonb end)
        from report_reports r where r.id = s.report_id and s.status <> 'PENDING'`);
      await knex.raw(`
        update report_decisions d set provenance = jsonb_build_object(
          'provider', case d.decided_by when 'POLICY' then 'CREDIT_POLICY_ENGINE' when 'ANALYST' then 'ANALYST' end,
          'sandbox', case when d.sandbox or r.sandbox then to_jsonb(true) else 'null'::jsonb end)
        from report_reports r where r.id = d.report_id`);
    },
    async down(knex) {
      await knex.schema.alterTable('report_decisions', (t) => t.dropColumn('provenance'));
      await knex.schema.alterTable('report_sections', (t) => t.dropColumn('provenance'));
      await knex.schema.alterTable('report_reports', (t) => t.dropColumn('sandbox'));
    },
  },
];
