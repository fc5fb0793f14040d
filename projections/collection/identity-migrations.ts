import type { Migration } from '../../platform/database/migrate.ts';

export const collectionIdentityMigrations: Migration[] = [
  {
    name: '202611261010_collection_identity_validations',
    async up(knex) {
      // What a check needs from its collection: origin, registry, the subject's masked document and subject id (erasure).
      await knex.schema.createTable('collection_identity_collections', (t) => {
        t.text('collection_id').primary();
        t.text('organization_id').notNullable();
        t.text('registry_id').notNullable();
        t.text('subject_id');
        t.text('document').notNullable();
        t.boolean('public_form').notNullable();
        t.jsonb('signature_item_ids').notNullable();
      });
      // One row per identity check: the validation listing, the kyc.identidade_aprovada input key, the images to erase.
      await knex.schema.createTable('collection_identity_validations', (t) => {
        t.text('check_id').primary();
        t.text('organization_id').notNullable();
        t.text('origin').notNullable();
        t.text('collection_id').notNullable();
        t.text('item_id').notNullable();
        t.text('recipient_id');
        t.text('registry_id').notNullable();
        t.text('subject_id');
        t.text('document').notNullable();
        t.jsonb('image_blob_ids').notNullable();
        t.integer('image_count').notNullable();
        t.text('provider');
        t.text('verdict');
        t.double('similarity');
        t.double('liveness');
        t.jsonb('signals');
        t.timestamp('started_at', { useTz: true }).notNullable();
        t.timestamp('completed_at', { useTz: true });
        t.index(['organization_id', 'origin', 'completed_at']);
        t.index(['organization_id', 'registry_id', 'completed_at']);
        t.index(['subject_id']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('collection_identity_validations');
      await knex.schema.dropTable('collection_identity_collections');
    },
  },
  {
    name: '202611271002_collection_identity_recipient_subject',
    async up(knex) {
      // The recipient who took the images (their personal-data subject): their own erasure deletes the row.
      await knex.schema.alterTable('collection_identity_validations', (t) => {
        t.text('recipient_subject_id');
        t.index(['recipient_subject_id']);
      });
    },
    async down(knex) {
      await knex.schema.alterTable('collection_identity_validations', (t) => {
        t.dropIndex(['recipient_subject_id']);
        t.dropColumn('recipient_subject_id');
      });
    },
  },
];
