import type { Migration } from '../database/migrate.ts';

export const projectionMigrations: Migration[] = [
  {
    name: '202611220000_projections_checkpoints',
    async up(knex) {
      await knex.schema.createTable('projection_checkpoints', (t) => {
        t.text('name').primary();
        // Position as EventStoreDB orders it: (commit, prepare). Numeric keeps full 64-bit range.
        t.decimal('commit_position', 20, 0).notNullable().defaultTo(0);
        t.decimal('prepare_position', 20, 0).notNullable().defaultTo(0);
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      });
    },
    async down(knex) {
      await knex.schema.dropTable('projection_checkpoints');
    },
  },
  {
    name: '202611250000_projections_leases_and_parking',
    async up(knex) {
      // Who runs each projection. The token grows at every change of holder; a batch commits only
      // if the token it started with is still the row's, so a holder that lost it cannot write.
      await knex.schema.createTable('projection_leases', (t) => {
        t.text('name').primary();
        t.text('owner').notNullable();
        t.bigInteger('token').notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable();
      });
      // Events a projection could not apply, so that one bad event stops nobody else.
      await knex.schema.createTable('projection_parked_events', (t) => {
        t.bigIncrements('id');
        t.text('projection').notNullable();
        t.decimal('commit_position', 20, 0).notNullable();
        t.decimal('prepare_position', 20, 0).notNullable();
        t.text('stream_name').notNullable();
        t.text('event_id').notNullable();
        t.text('event_type').notNullable();
        t.text('error').notNullable();
        t.integer('attempts').notNullable();
        /** parked, retried (applied later by hand) or skipped (given up by hand). */
        t.text('status').notNullable().defaultTo('parked');
        t.timestamp('parked_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
        t.timestamp('resolved_at', { useTz: true });
        t.unique(['projection', 'event_id']);
      });
      await knex.raw(`create index projection_parked_events_open on projection_parked_events (stream_name) where status = 'parked'`);
    },
    async down(knex) {
      await knex.schema.dropTable('projection_parked_events');
      await knex.schema.dropTable('projection_leases');
    },
  },
];
