import type { Migration } from '../../platform/database/migrate.ts';

export const operationMigrations: Migration[] = [
  {
    name: '202611231400_operation_read_tables',
    async up(knex) {
      // Every version of every pipeline, immutable; the latest is the one with the highest number.
      await knex.schema.createTable('operation_versions', (t) => {
        t.text('operation_id').notNullable();
        t.integer('version').notNullable();
        t.text('organization_id').notNullable();
        t.text('name').notNullable();
        t.jsonb('content').notNullable();
        t.text('created_by').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.primary(['operation_id', 'version']);
        t.index(['organization_id', 'name']);
      });
      // One row per execution: its status, its steps with their times, and the facts the dashboard reads.
      await knex.schema.createTable('operation_executions', (t) => {
        t.text('id').primary();
        t.text('organization_id').notNullable();
        t.text('proposal_id').notNullable();
        t.text('kind').notNullable();
        t.text('operation_id');
        t.integer('operation_version');
        t.text('target_id').notNullable();
        t.text('document').notNullable();
        t.text('entity_type').notNullable();
        t.text('status').notNullable();
        t.jsonb('steps').notNullable();
        t.jsonb('report_ids').notNullable();
        t.text('indicative_offer_id');
        t.text('chosen_offer_id');
        t.bigInteger('chosen_amount_cents');
        t.integer('chosen_term_months');
        t.text('firm_offer_id');
        t.text('decision');
        t.text('rejection_step');
        t.jsonb('closing');
        t.text('started_by').notNullable();
        t.timestamp('started_at', { useTz: true }).notNullable();
        t.timestamp('decided_at', { useTz: true });
        t.timestamp('finished_at', { useTz: true });
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.index(['organization_id', 'operation_id', 'started_at']);
        t.index(['organization_id', 'proposal_id']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('operation_executions');
      await knex.schema.dropTable('operation_versions');
    },
  },
  {
    name: '202611231401_operation_report_links',
    async up(knex) {
      // The process manager's own table, not a read model: which execution waits on which report,
      // written while it handles ExecutionReportRequested, read when the report's decision arrives.
      await knex.schema.createTable('operation_report_links', (t) => {
        t.text('report_id').primary();
        t.text('execution_id').notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable('operation_report_links');
    },
  },
  {
    name: '202611231652_operation_subject',
    async up(knex) {
      // The holder's personal-data subject: an erasure of that person finds the executions naming them.
      await knex.schema.alterTable('operation_executions', (t) => {
        t.text('subject_id');
        t.index(['subject_id']);
      });
    },
    async down(knex) {
      await knex.schema.alterTable('operation_executions', (t) => t.dropColumn('subject_id'));
    },
  },
  {
    name: '202611261041_operation_contract',
    async up(knex) {
      // The contract of a CONTRACT_SIGNATURE step as the execution's detail shows it.
      await knex.schema.alterTable('operation_executions', (t) => {
        t.jsonb('contract');
      });
      // The process manager's own table, like operation_report_links: which execution waits on
      // which contract collection, read when that collection's signature, cancel or expiry arrives.
      await knex.schema.createTable('operation_contract_links', (t) => {
        t.text('collection_id').primary();
        t.text('execution_id').notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable('operation_contract_links');
      await knex.schema.alterTable('operation_executions', (t) => {
        t.dropColumn('contract');
      });
    },
  },
  {
    name: '202611271200_operation_collection_step',
    async up(knex) {
      // The collections of COLLECTION steps as the execution's detail shows them.
      await knex.schema.alterTable('operation_executions', (t) => {
        t.jsonb('collections').notNullable().defaultTo('[]');
      });
      // Every collection an execution opens (its contract's, its COLLECTION steps'), with the
      // proposal it serves: the process manager finds the execution by it, and a proposal's
      // input data finds its collections.
      await knex.schema.renameTable('operation_contract_links', 'operation_collection_links');
      await knex.schema.alterTable('operation_collection_links', (t) => {
        t.text('proposal_id');
        t.index(['proposal_id']);
      });
      await knex.raw('update operation_collection_links l set proposal_id = e.proposal_id from operation_executions e where e.id = l.execution_id');
    },
    async down(knex) {
      await knex.schema.alterTable('operation_collection_links', (t) => {
        t.dropIndex(['proposal_id']);
        t.dropColumn('proposal_id');
      });
      await knex.schema.renameTable('operation_collection_links', 'operation_contract_links');
      await knex.schema.alterTable('operation_executions', (t) => t.dropColumn('collections'));
    },
  },
];
