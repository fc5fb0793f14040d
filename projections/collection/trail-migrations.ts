import type { Migration } from '../../platform/database/migrate.ts';

export const trailReadMigrations: Migration[] = [
  {
    name: '202611231640_collection_trail',
    async up(knex) {
      // One row per event of a collection stream, in stream order: the envelope as recorded
      // (occurred_at as its exact ISO text and the payload as json, not jsonb, so the export
      // gives back the very values that were hashed), the entry hash and the chain hash.
      await knex.schema.createTable('collection_trail_entries', (t) => {
        t.text('collection_id').notNullable();
        t.integer('seq').notNullable();
        t.text('event_id').notNullable().unique();
        t.text('organization_id').notNullable();
        t.text('item_id');
        t.text('recipient_id');
        t.text('action').notNullable();
        t.text('actor_type').notNullable();
        t.text('actor_id');
        t.text('occurred_at').notNullable();
        t.json('payload').notNullable();
        t.text('entry_hash').notNullable();
        t.text('chain_hash').notNullable();
        t.boolean('seal_point').notNullable();
        t.primary(['collection_id', 'seq']);
      });
      // Status changes whose chain head the sealer has not signed yet (a queue, emptied by it).
      await knex.schema.createTable('collection_trail_unsealed', (t) => {
        t.text('collection_id').notNullable();
        t.integer('seq').notNullable();
        t.text('chain_hash').notNullable();
        t.text('signed_at').notNullable();
        t.primary(['collection_id', 'seq']);
      });
      // Not owned by the projection, so a rebuild keeps them: the entry hash each event got when
      // first projected (an erased personal field must not change it, docs/collection-trail.md)
      // and the seals, signed once.
      await knex.schema.createTable('collection_trail_hashes', (t) => {
        t.text('event_id').primary();
        t.text('entry_hash').notNullable();
      });
      await knex.schema.createTable('collection_trail_seals', (t) => {
        t.text('collection_id').notNullable();
        t.integer('seq').notNullable();
        t.text('chain_hash').notNullable();
        t.text('signed_at').notNullable();
        t.text('key_id').notNullable();
        t.text('signature').notNullable();
        t.primary(['collection_id', 'seq']);
      });
    },
    async down(knex) {
      for (const table of ['collection_trail_seals', 'collection_trail_hashes', 'collection_trail_unsealed', 'collection_trail_entries']) await knex.schema.dropTable(table);
    },
  },
  {
    name: '202611300700_collection_trail-seal-delay',
    async up(knex) {
      // Every entry is now queued, not only status changes: a status change is sealed at once,
      // another head once it has waited (queued_at, the database's clock like the sealer's).
      await knex.schema.alterTable('collection_trail_unsealed', (t) => {
        t.boolean('seal_point').notNullable().defaultTo(true);
        t.timestamp('queued_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      });
      // The RFC 3161 token over the seal's digest (DER, base64), when a TSA is configured.
      await knex.schema.alterTable('collection_trail_seals', (t) => {
        t.text('timestamp_token');
      });
    },
    async down(knex) {
      await knex.schema.alterTable('collection_trail_seals', (t) => t.dropColumn('timestamp_token'));
      await knex.schema.alterTable('collection_trail_unsealed', (t) => {
        t.dropColumn('seal_point');
        t.dropColumn('queued_at');
      });
    },
  },
];
