import type { Migration } from '../../platform/database/migrate.ts';

export const inputDataMigrations: Migration[] = [
  {
    name: '202611271121_input-data_collections_by_registry',
    async up(knex) {
      // A proposal's input data reads the completed collections of its holder's registry on every
      // call (and on every REPORT run): without this index that is a scan of the organization's collections.
      await knex.raw('create index if not exists collection_collections_registry on collection_collections (organization_id, registry_id)');
    },
    async down(knex) {
      await knex.raw('drop index if exists collection_collections_registry');
    },
  },
];
