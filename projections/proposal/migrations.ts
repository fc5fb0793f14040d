import type { Migration } from '../../platform/database/migrate.ts';

export const proposalMigrations: Migration[] = [
  {
    name: '202611231300_proposal_read_tables',
    async up(knex) {
      // One row per proposal: the list's columns and every fact the dashboard counts, so the
      // dashboard reads this table alone.
      await knex.schema.createTable('proposal_facts', (t) => {
        t.text('id').primary();
        t.text('organization_id').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.text('created_by').notNullable();
        t.text('document').notNullable();
        t.text('name').notNullable();
        t.text('entity_type').notNullable();
        t.text('kind').notNullable();
        t.text('origin').notNullable();
        t.text('correspondent_id');
        t.text('agent_id');
        t.text('external_id');
        t.text('product_id').notNullable();
        t.text('product_key').notNullable();
        t.text('product_name').notNullable();
        t.text('portfolio_id');
        t.text('portfolio_name');
        t.text('status').notNullable();
        t.timestamp('status_changed_at', { useTz: true }).notNullable();
        t.bigInteger('requested_cents');
        t.integer('requested_term_months');
        t.bigInteger('fixed_amount_cents');
        t.bigInteger('firm_cents');
        t.bigInteger('chosen_cents');
        t.text('chosen_by');
        t.text('decision');
        t.text('rejection_step');
        t.timestamp('analyzed_at', { useTz: true });
        t.timestamp('pre_approved_at', { useTz: true });
        t.timestamp('firm_offer_at', { useTz: true });
        t.timestamp('chosen_at', { useTz: true });
        t.timestamp('issued_at', { useTz: true });
        t.date('issued_on');
        t.boolean('expired_without_choice').notNullable().defaultTo(false);
        t.index(['organization_id', 'created_at']);
        t.index(['organization_id', 'document']);
        t.index(['organization_id', 'external_id']);
        t.index(['organization_id', 'status']);
      });
      // The current link of each offer, by the sha256 of its token: where the public page starts.
      await knex.schema.createTable('proposal_offer_links', (t) => {
        t.text('link_hash').primary();
        t.text('organization_id').notNullable();
        t.text('proposal_id').notNullable();
        t.text('offer_id').notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable('proposal_offer_links');
      await knex.schema.dropTable('proposal_facts');
    },
  },
  {
    name: '202611231650_proposal_offer_deadline',
    async up(knex) {
      // The indicative offer a proposal waits on and its deadline, set while it waits: the
      // expiry job's scan, over a partial index that holds only the waiting ones.
      await knex.schema.alterTable('proposal_facts', (t) => {
        t.text('waiting_offer_id');
        t.timestamp('waiting_offer_until', { useTz: true });
      });
      await knex.raw('create index proposal_facts_waiting_offer_until on proposal_facts (waiting_offer_until) where waiting_offer_until is not null');
    },
    async down(knex) {
      await knex.raw('drop index proposal_facts_waiting_offer_until');
      await knex.schema.alterTable('proposal_facts', (t) => {
        t.dropColumn('waiting_offer_id');
        t.dropColumn('waiting_offer_until');
      });
    },
  },
  {
    name: '202611231651_proposal_subject',
    async up(knex) {
      // The holder's personal-data subject: an erasure of that person finds the rows to erase.
      await knex.schema.alterTable('proposal_facts', (t) => {
        t.text('subject_id');
        t.index(['subject_id']);
      });
    },
    async down(knex) {
      await knex.schema.alterTable('proposal_facts', (t) => t.dropColumn('subject_id'));
    },
  },
];
