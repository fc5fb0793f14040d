import type { Migration } from '../../platform/database/migrate.ts';

export const collectionMigrations: Migration[] = [
  {
    name: '202611231630_collection_read_tables',
    async up(knex) {
      // One row per collection: filter columns for the listing and the folded state for the detail.
      await knex.schema.createTable('collection_collections', (t) => {
        t.text('id').primary();
        t.text('organization_id').notNullable();
        t.text('status').notNullable();
        t.text('registry_id').notNullable();
        t.text('template_slug');
        t.text('subject_name').notNullable();
        t.text('subject_document').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.timestamp('sent_at', { useTz: true });
        t.timestamp('expires_at', { useTz: true });
        t.jsonb('state').notNullable();
        t.index(['organization_id', 'created_at']);
        t.index(['status', 'expires_at']);
      });
      // Items by status: the operator queue reads it without opening every collection.
      await knex.schema.createTable('collection_items', (t) => {
        t.text('collection_id').notNullable();
        t.text('item_id').notNullable();
        t.text('organization_id').notNullable();
        t.text('status').notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.primary(['collection_id', 'item_id']);
        t.index(['organization_id', 'status', 'updated_at']);
      });
      // The current link of each recipient, by the sha256 of its token (the token itself is never stored).
      await knex.schema.createTable('collection_links', (t) => {
        t.text('collection_id').notNullable();
        t.text('recipient_id').notNullable();
        t.text('organization_id').notNullable();
        t.integer('link_version').notNullable();
        t.text('link_hash').notNullable().unique();
        t.primary(['collection_id', 'recipient_id']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('collection_links');
      await knex.schema.dropTable('collection_items');
      await knex.schema.dropTable('collection_collections');
    },
  },
  {
    // The expiry job reads messaging's schedule table (indexed by the next due moment), never this
    // table by status and deadline: the index only cost a write on every collection event.
    name: '202611261050_collection_drop_status_expiry_index',
    async up(knex) {
      await knex.schema.alterTable('collection_collections', (t) => t.dropIndex(['status', 'expires_at']));
    },
    async down(knex) {
      await knex.schema.alterTable('collection_collections', (t) => t.index(['status', 'expires_at']));
    },
  },
  {
    // Whose keys sealed something in the collection's events: an erasure of one of them folds the
    // row again. Rows written before this column learn their subjects on a rebuild.
    name: '202611281200_collection_subject_ids',
    async up(knex) {
      await knex.schema.alterTable('collection_collections', (t) => t.specificType('subject_ids', 'text[]').notNullable().defaultTo('{}'));
      await knex.raw('create index collection_collections_subject_ids on collection_collections using gin (subject_ids)');
    },
    async down(knex) {
      await knex.schema.alterTable('collection_collections', (t) => t.dropColumn('subject_ids'));
    },
  },
];
