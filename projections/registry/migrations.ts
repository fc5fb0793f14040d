import type { Migration } from '../../platform/database/migrate.ts';

export const registryMigrations: Migration[] = [
  {
    name: '202611231600_registry_read_tables',
    async up(knex) {
      await knex.schema.createTable('registry_registries', (t) => {
        t.text('id').primary();
        t.text('organization_id').notNullable();
        t.text('document').notNullable();
        t.text('name').notNullable();
        t.text('entity_type').notNullable();
        t.jsonb('contacts').notNullable();
        t.jsonb('basic_data').notNullable();
        t.text('kyc_status').notNullable();
        t.integer('completeness').notNullable();
        // Whose personal data the row copies: an erasure of that subject blanks it.
        t.text('subject_id');
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        // Not unique: the id is derived from organization and document already, and erased rows share '***'.
        t.index(['organization_id', 'document']);
        t.index(['organization_id', 'updated_at']);
      });
      await knex.schema.createTable('registry_documents', (t) => {
        t.text('id').primary();
        t.text('registry_id').notNullable();
        t.text('organization_id').notNullable();
        t.text('document').notNullable();
        t.text('file_name').notNullable();
        t.text('mime_type').notNullable();
        t.integer('size_bytes').notNullable();
        t.text('sha256').notNullable();
        t.text('blob_id').notNullable();
        t.text('expected_type');
        t.jsonb('source');
        t.jsonb('uploaded_by').notNullable();
        t.text('status').notNullable();
        t.text('stage');
        t.text('type');
        t.integer('attempt').notNullable();
        t.text('force_type');
        t.text('verdict');
        t.double('score');
        t.text('reason');
        // YYYY-MM-DD: compared as text with the date of `asOf`.
        t.text('valid_until');
        // The operator's verdict, beside the analysis' own (verdict).
        t.text('decision_verdict');
        t.text('decided_by_user_id');
        t.text('comment');
        t.text('subject_id');
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.index(['organization_id', 'registry_id', 'created_at']);
        t.index(['organization_id', 'document', 'type']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('registry_documents');
      await knex.schema.dropTable('registry_registries');
    },
  },
  {
    name: '202611271000_registry_kyc_expiry',
    async up(knex) {
      // The KYC expiry job reads validated documents by the day their validity ends.
      await knex.raw(`create index registry_documents_validated_until on registry_documents (valid_until, registry_id) where status = 'VALIDATED' and valid_until is not null`);
      // The job's cursor: the day (YYYY-MM-DD) of its last finished run; documents that ended before it are done.
      await knex.schema.createTable('registry_kyc_sweeps', (t) => {
        t.text('job').primary();
        t.text('through_day').notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable('registry_kyc_sweeps');
      await knex.raw('drop index registry_documents_validated_until');
    },
  },
  {
    name: '202611290410_registry_public_form_intake',
    async up(knex) {
      // A registry a public form's intake created holds only what an anonymous visitor declared.
      await knex.schema.alterTable('registry_registries', (t) => {
        t.boolean('self_declared').notNullable().defaultTo(false);
      });
      // A file of an intake nobody linked yet: kept out of the registry's documents until an operator links it.
      await knex.schema.alterTable('registry_documents', (t) => {
        t.text('intake_collection_id');
        t.index(['intake_collection_id']);
      });
    },
    async down(knex) {
      await knex.schema.alterTable('registry_documents', (t) => {
        t.dropColumn('intake_collection_id');
      });
      await knex.schema.alterTable('registry_registries', (t) => {
        t.dropColumn('self_declared');
      });
    },
  },
  {
    name: '202611301000_registry_document_provenance',
    async up(knex) {
      // The latest opinion's {provider, sandbox} as its event recorded it; null: no opinion (yet), or a row folded before this column.
      await knex.schema.alterTable('registry_documents', (t) => t.jsonb('provenance'));
    },
    async down(knex) {
      await knex.schema.alterTable('registry_documents', (t) => t.dropColumn('provenance'));
    },
  },
];
