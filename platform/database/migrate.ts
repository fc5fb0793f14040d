import type { Knex } from 'knex';
import { withoutStatementTimeout } from './knex.ts';

export interface Migration {
  /** Unique and sortable: `<yyyymmddhhmm>_<module>_<what>`. Never rename one that has shipped. */
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Runs pending migrations (the service's list is application/migrations.ts). knex's own lock table makes concurrent starts of several processes safe. */
export async function migrateToLatest(knex: Knex, migrations: readonly Migration[]): Promise<string[]> {
  const sorted = [...migrations].sort((a, b) => a.name.localeCompare(b.name));
  const [, applied] = (await knex.migrate.latest({
    migrationSource: {
      getMigrations: async () => sorted,
      getMigrationName: (m: Migration) => m.name,
      // Each runs in its own transaction; an index build on a big table may outlast the pool's statement timeout.
      getMigration: async (m: Migration) => ({
        up: async (trx: Knex) => {
          await withoutStatementTimeout(trx);
          await m.up(trx);
        },
        down: async (trx: Knex) => {
          await withoutStatementTimeout(trx);
          await m.down(trx);
        },
      }),
    },
  })) as [number, string[]];
  return applied;
}
