import type { Knex } from 'knex';
import type { Keyring } from '../../config/index.ts';
import { registryStream } from '../../domain/registry/events.ts';
import { ERASED, subjectId } from '../../platform/personal-data/index.ts';
import { registryAliasOf } from './registry-lookups.ts';

/**
 * Re-keying of the registries created when their id was an unkeyed hash of the CPF/CNPJ
 * (docs/registry.md, "Registry ids"). PostgreSQL event store only, with the service stopped: the
 * log is rewritten where it stands, and a running process would append under the old id.
 */

/** A 24-hex id as a whole word: no letter or digit either side (a dash, colon or quote may be). */
const ID_WORD = /(?<![0-9A-Za-z])[0-9a-f]{24}(?![0-9A-Za-z])/g;

/** The new id of an erased registry: no document is left to key, so its old id is keyed instead. */
export const erasedRegistryIdOf = (pepper: Keyring, oldId: string) => subjectId(pepper, `erased:${oldId}`).slice(0, 24);

export interface Rekeying {
  organizationId: string;
  oldId: string;
  newId: string;
}

/**
 * The registries still under an old id: those whose keyed lookup names another id than its own
 * first 24 hex, and the erased ones that have no lookup (the erasure left no document to record
 * one from) and were not re-keyed already (by their alias, before or after the read tables are
 * rebuilt). A registry created under a keyed id and erased before any start recorded its lookup
 * falls in the second kind too: re-keying it again costs nothing and is done once.
 */
export async function planRekeying(db: Knex, pepper: Keyring): Promise<Rekeying[]> {
  const keyed: Array<{ organization_id: string; lookup: string; registry_id: string }> = await db('registry_lookups')
    .whereRaw('registry_id <> left(lookup, 24)')
    .select('organization_id', 'lookup', 'registry_id');
  const erased: Array<{ id: string; organization_id: string }> = await db('registry_registries as r')
    .where('r.document', ERASED)
    .whereNotExists(db('registry_lookups as l').whereRaw('l.registry_id = r.id'))
    .whereNotExists(db('registry_id_aliases as a').whereRaw('a.new_id = r.id'))
    .select('r.id', 'r.organization_id');
  const aliased = new Set(
    (
      await db('registry_id_aliases').whereIn(
        'old_id_hash',
        erased.map((r) => registryAliasOf(pepper, r.id)),
      )
    ).map((a: { old_id_hash: string }) => a.old_id_hash),
  );
  return [
    ...keyed.map((r) => ({ organizationId: r.organization_id, oldId: r.registry_id, newId: r.lookup.slice(0, 24) })),
    ...erased.filter((r) => !aliased.has(registryAliasOf(pepper, r.id))).map((r) => ({ organizationId: r.organization_id, oldId: r.id, newId: erasedRegistryIdOf(pepper, r.id) })),
  ];
}

/** A table walked in keyset batches, and the columns in which an old id is replaced. */
interface Target {
  table: string;
  keys: Array<{ name: string; type: 'bigint' | 'text' }>;
  columns: Array<{ name: string; type: 'text' | 'jsonb' }>;
}

/**
 * Every table outside the projections that names registry ids. The read tables are rebuilt from
 * the rewritten events afterwards; the webhook deliveries are not a projection's (a rebuild
 * neither empties nor refills them), so their kept bodies are rewritten here: a redelivery sends
 * the new id.
 */
const TARGETS: Target[] = [
  {
    table: 'events',
    keys: [
      { name: 'transaction_id', type: 'bigint' },
      { name: 'global_position', type: 'bigint' },
    ],
    columns: [
      { name: 'stream_name', type: 'text' },
      { name: 'data', type: 'jsonb' },
      { name: 'metadata', type: 'jsonb' },
    ],
  },
  { table: 'streams', keys: [{ name: 'stream_name', type: 'text' }], columns: [{ name: 'stream_name', type: 'text' }] },
  { table: 'webhook_deliveries', keys: [{ name: 'id', type: 'text' }], columns: [{ name: 'body', type: 'text' }] },
  {
    table: 'webhook_delivery_bodies',
    keys: [
      { name: 'event_id', type: 'text' },
      { name: 'kind', type: 'text' },
    ],
    columns: [{ name: 'body', type: 'text' }],
  },
];

/**
 * One table, in keyset batches of `batchSize` rows, each batch's changes in one transaction (the
 * SQL names only the constant identifiers above). Rows without an old id are read, not written.
 */
async function rewriteTable(db: Knex, target: Target, newIdOf: ReadonlyMap<string, string>, batchSize: number): Promise<number> {
  const keyList = target.keys.map((k) => k.name).join(', ');
  const selected = [...target.keys.map((k, i) => `${k.name}::text as k${i}`), ...target.columns.map((c, i) => `${c.name}::text as c${i}`)].join(', ');
  const after = `(${keyList}) > (${target.keys.map((k) => `?::${k.type}`).join(', ')})`;
  const rewrite = (text: string | null) => text?.replace(ID_WORD, (word) => newIdOf.get(word) ?? word) ?? null;
  let last: string[] | null = null;
  let rewritten = 0;
  for (;;) {
    const { rows } = (await db.raw(`select ${selected} from ${target.table} ${last ? `where ${after}` : ''} order by ${keyList} limit ?`, [...(last ?? []), batchSize])) as {
      rows: Array<Record<string, string | null>>;
    };
    if (!rows.length) return rewritten;
    const changed = rows.flatMap((row) => {
      const values = target.columns.map((_, i) => rewrite(row[`c${i}`]!));
      return values.some((value, i) => value !== row[`c${i}`]) ? [{ keys: target.keys.map((_, i) => row[`k${i}`]!), values }] : [];
    });
    if (changed.length) {
      await db.transaction((trx) =>
        trx.raw(
          `update ${target.table} t set ${target.columns.map((c, i) => `${c.name} = v.c${i}::${c.type}`).join(', ')}
             from unnest(${[...target.keys.map((k) => `?::${k.type}[]`), ...target.columns.map(() => '?::text[]')].join(', ')})
               as v(${[...target.keys.map((_, i) => `k${i}`), ...target.columns.map((_, i) => `c${i}`)].join(', ')})
            where ${target.keys.map((k, i) => `t.${k.name} = v.k${i}`).join(' and ')}`,
          // A null (a body not kept on this row) stays null: knex's types take no null in an array.
          [...target.keys.map((_, i) => changed.map((c) => c.keys[i])), ...target.columns.map((_, i) => changed.map((c) => c.values[i]))] as Knex.RawBinding[],
        ),
      );
      rewritten += changed.length;
    }
    last = target.keys.map((_, i) => rows.at(-1)![`k${i}`]!);
  }
}

export interface RekeyResult {
  registries: number;
  /** Rows rewritten per table. */
  rows: Record<string, number>;
}

/**
 * Gives every registry still under an old id its keyed id: every occurrence of the old id as a
 * whole word in the tables above is replaced, then, in one transaction, the aliases are recorded
 * and the lookups point at the new ids. Idempotent: a run with nothing planned changes nothing.
 * Resumable: a run stopped half way left the lookups (which plan the next run) as they were, and
 * the rows already rewritten no longer name an old id.
 */
export async function rekeyRegistries(db: Knex, pepper: Keyring, batchSize: number): Promise<RekeyResult> {
  const plan = await planRekeying(db, pepper);
  const rows: Record<string, number> = {};
  if (!plan.length) return { registries: 0, rows };
  // A second registry created under the keyed id of the same document (by a process that ran
  // old code past the last start) would merge two streams into one: the operator decides.
  const taken = await db('streams')
    .whereIn(
      'stream_name',
      plan.map((p) => registryStream(p.newId)),
    )
    .pluck('stream_name');
  if (taken.length)
    throw new Error(`the keyed id of ${taken.length} registr${taken.length === 1 ? 'y' : 'ies'} already names a stream (${taken.join(', ')}): two registries of one document; nothing was changed`);
  const newIdOf = new Map(plan.map((p) => [p.oldId, p.newId]));
  for (const target of TARGETS) rows[target.table] = await rewriteTable(db, target, newIdOf, batchSize);
  await db.transaction(async (trx) => {
    await trx('registry_id_aliases')
      .insert(plan.map((p) => ({ organization_id: p.organizationId, old_id_hash: registryAliasOf(pepper, p.oldId), new_id: p.newId })))
      .onConflict(['organization_id', 'old_id_hash'])
      .ignore();
    await trx.raw(`update registry_lookups l set registry_id = v.new_id from unnest(?::text[], ?::text[]) as v(old_id, new_id) where l.registry_id = v.old_id`, [
      plan.map((p) => p.oldId),
      plan.map((p) => p.newId),
    ]);
  });
  return { registries: plan.length, rows };
}
