import type { Knex } from 'knex';
import { keyringFor, type Keyring } from '../../config/index.ts';
import type { Migration } from '../../platform/database/migrate.ts';
import { ERASED, subjectId } from '../../platform/personal-data/index.ts';
import type { AppContext } from '../context.ts';
import { DomainError } from '../../domain/shared/errors.ts';

/** The keyed lookup of a CPF/CNPJ in an organization; the new registry ids are its first 24 hex. */
export const registryLookupOf = (pepper: Keyring, organizationId: string, document: string) => subjectId(pepper, `registry:${organizationId}:${document}`);

/**
 * What an alias keeps of a re-keyed registry's old id (scripts/rekey-registries.ts): a keyed hash,
 * so the table cannot be read back to the old id, which an unkeyed hash of the CPF would give.
 */
export const registryAliasOf = (pepper: Keyring, oldId: string) => subjectId(pepper, `registry-alias:${oldId}`);

export const registryLookupMigrations: Migration[] = [
  {
    // Which registry a document has, by keyed lookup: registries created when ids were an unkeyed
    // hash keep their ids (streams and every read table name them) and are found through here.
    name: '202611290530_registry_lookups',
    async up(knex) {
      await knex.schema.createTable('registry_lookups', (t) => {
        t.text('organization_id').notNullable();
        t.text('lookup').notNullable();
        t.text('registry_id').notNullable();
        t.primary(['organization_id', 'lookup']);
        // The start's search for registries not recorded yet goes by registry id.
        t.index(['registry_id']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('registry_lookups');
    },
  },
  {
    // Old registry ids re-keyed by scripts/rekey-registries.ts, so integrators holding them keep
    // reaching the registry. Not a projection's: a rebuild leaves it as it is.
    name: '202612010600_registry_id_aliases',
    async up(knex) {
      await knex.schema.createTable('registry_id_aliases', (t) => {
        t.text('organization_id').notNullable();
        t.text('old_id_hash').notNullable();
        t.text('new_id').notNullable();
        t.primary(['organization_id', 'old_id_hash']);
        // The re-keying skips erased registries already re-keyed by their new id.
        t.index(['new_id']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('registry_id_aliases');
    },
  },
];

/**
 * Run `read` on the registry an id in a request names. An id re-keyed since (docs/registry.md) is
 * not found under itself: only then is its alias looked up and `read` run again on the new id, so
 * a request with a current id pays no extra query. A not-found changed nothing, so trying again
 * is safe.
 */
export async function onRegistryId<T>(app: Pick<AppContext, 'config' | 'db'>, organizationId: string, id: string, read: (registryId: string) => Promise<T>): Promise<T> {
  try {
    return await read(id);
  } catch (error) {
    if (!(error instanceof DomainError) || error.kind !== 'not_found') throw error;
    const alias = await app
      .db('registry_id_aliases')
      .where({ organization_id: organizationId, old_id_hash: registryAliasOf(keyringFor(app.config, 'pepper'), id) })
      .first('new_id');
    if (!alias) throw error;
    return read(alias.new_id);
  }
}

/**
 * Record the keyed lookup of every registry the read table has that is not recorded yet. A
 * schema migration has no pepper, so the service's start runs this after migrating; each start
 * only reads the registries created since the last one. Erased rows have no document left and
 * are skipped (the erasure was meant to cut that link). Concurrent starts insert the same rows.
 */
export async function recordRegistryLookups(db: Knex, pepper: Keyring): Promise<number> {
  const rows: Array<{ id: string; organization_id: string; document: string }> = await db('registry_registries as r')
    .whereNot('r.document', ERASED)
    .whereNotExists(db('registry_lookups as l').whereRaw('l.registry_id = r.id'))
    .select('r.id', 'r.organization_id', 'r.document');
  for (let i = 0; i < rows.length; i += 1000) {
    const batch = rows.slice(i, i + 1000).map((r) => ({ organization_id: r.organization_id, lookup: registryLookupOf(pepper, r.organization_id, r.document), registry_id: r.id }));
    await db('registry_lookups').insert(batch).onConflict(['organization_id', 'lookup']).ignore();
  }
  return rows.length;
}
