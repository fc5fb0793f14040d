import type { Migration } from '../../platform/database/migrate.ts';

export const collectionInputMigrations: Migration[] = [
  {
    name: '202611261000_collection_inputs',
    async up(knex) {
      // What the inputs projection needs of a collection when its answers arrive (clear envelope facts only).
      await knex.schema.createTable('collection_input_sources', (t) => {
        t.text('collection_id').primary();
        t.text('organization_id').notNullable();
        t.text('registry_id').notNullable();
        t.text('template_slug');
      });
      // The latest value of each input key per registry: form.<template>.<field>, kyc.consentimento_<type>.
      await knex.schema.createTable('collection_inputs', (t) => {
        t.text('organization_id').notNullable();
        t.text('registry_id').notNullable();
        t.text('key').notNullable();
        t.jsonb('value').notNullable();
        t.text('source').notNullable();
        t.text('collection_id').notNullable();
        t.text('item_id').notNullable();
        t.timestamp('occurred_at', { useTz: true }).notNullable();
        // Whose personal data the value is (form answers): erasing that subject deletes the row.
        t.text('subject_id');
        t.primary(['organization_id', 'registry_id', 'key']);
        t.index(['subject_id']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('collection_inputs');
      await knex.schema.dropTable('collection_input_sources');
    },
  },
  {
    name: '202611290411_collection_inputs_intake',
    async up(knex) {
      // false for a public form's intake no operator linked yet: its answers wait for the link.
      await knex.schema.alterTable('collection_input_sources', (t) => {
        t.boolean('linked').notNullable().defaultTo(true);
      });
    },
    async down(knex) {
      await knex.schema.alterTable('collection_input_sources', (t) => {
        t.dropColumn('linked');
      });
    },
  },
];
