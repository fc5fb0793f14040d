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
];
