import type { Knex } from 'knex';
import { DIMS } from '../../domain/dashboard/blocks.ts';
import { DAY_SQL, DURATIONS_SQL, KEY_SQL, MEASURES, TO_ISSUE, WEEK_SQL } from './contribution.ts';

/**
 * The rollups: sums by organization, dimension, bucket, key and status, at two grains. `day` is
 * the bucket's first Brasília date: the day itself, or the Monday of the week. A query reads whole
 * weeks from the weekly tables and the days of a week a boundary splits from the daily ones.
 */
export const GRAINS = { daily: DAY_SQL, weekly: WEEK_SQL } as const;
export type Grain = keyof typeof GRAINS;
export const sumsTable = (grain: Grain) => `dashboard_${grain}`;
export const durationsTable = (grain: Grain) => `dashboard_${grain}_durations`;
/** Tables the proposal projection keeps beside proposal_facts (docs/dashboard.md). */
export const DASHBOARD_TABLES = (Object.keys(GRAINS) as Grain[]).flatMap((grain) => [sumsTable(grain), durationsTable(grain)]);

export const SUMS_KEY = ['organization_id', 'dim', 'day', 'key', 'status', 'rejection_step'];
export const DURATIONS_KEY = ['organization_id', 'dim', 'day', 'key', 'status', 'pair', 'days'];
/** Rows of proposal_facts this change concerns: some proposals, or all of them (a backfill). */
const rows = (ids: readonly string[] | null): { where: string; bindings: Knex.RawBinding[] } => (ids === null ? { where: 'true', bindings: [] } : { where: 'f.id = any(?)', bindings: [[...ids]] });
const tuple = (alias: string, columns: string[]) => `(${columns.map((c) => `${alias}.${c}`).join(', ')})`;

/** Every dimension's key of a row of keyed() (keys in k_<dim>): the rollups hold one row per dimension. */
const ALL_KEYS = `(values ('all', ''), ${DIMS.map((dim) => `('${dim}', m.k_${dim})`).join(', ')})`;
/** The rejection step is kept by the organization's rows only (rejections are not broken down). */
const step = (alias: string) => `case when d.dim = 'all' then ${alias}.step else '' end`;
/** Cycle pairs are kept for the whole organization only; creation-to-issue per dimension too (breakdown's timeToOfferDays). */
const kept = (alias: string) => `(d.dim = 'all' or ${alias}.pair = '${TO_ISSUE}')`;

/**
 * The facts rows with their bucket, keys and the given columns, computed once per proposal
 * (`offset 0` keeps PostgreSQL from recomputing them for each of the seven keys joined after).
 */
const keyed = (grain: Grain, columns: string, from: string, where: string) =>
  `(select f.organization_id, ${GRAINS[grain]} as day, f.status, coalesce(f.rejection_step, '') as step, ${DIMS.map((dim) => `${KEY_SQL[dim]} as k_${dim}`).join(', ')}, ${columns}
    from ${from} where ${where} offset 0) m cross join lateral ${ALL_KEYS} d(dim, key)`;
const KEY_COLUMNS = 'm.organization_id, d.dim, m.day, d.key, m.status';
const WITH_DURATIONS = `proposal_facts f cross join lateral ${DURATIONS_SQL} p(pair, days)`;

function upserts(grain: Grain, where: string, sign: number): string[] {
  const measures = MEASURES.map((m) => m.column);
  return [
    `insert into ${sumsTable(grain)} (${SUMS_KEY.join(', ')}, ${measures.join(', ')})
     select ${KEY_COLUMNS}, ${step('m')}, ${measures.map((c) => `${sign} * sum(m.${c})`).join(', ')}
     from ${keyed(grain, MEASURES.map((m) => `${m.sql} as ${m.column}`).join(', '), 'proposal_facts f', where)}
     group by 1, 2, 3, 4, 5, 6
     on conflict (${SUMS_KEY.join(', ')}) do update set ${measures.map((c) => `${c} = ${sumsTable(grain)}.${c} + excluded.${c}`).join(', ')}`,
    `insert into ${durationsTable(grain)} (${DURATIONS_KEY.join(', ')}, n)
     select ${KEY_COLUMNS}, m.pair, m.days, ${sign} * count(*)
     from ${keyed(grain, 'p.pair, p.days', WITH_DURATIONS, `${where} and p.days is not null`)}
     where ${kept('m')} group by 1, 2, 3, 4, 5, 6, 7
     on conflict (${DURATIONS_KEY.join(', ')}) do update set n = ${durationsTable(grain)}.n + excluded.n`,
  ];
}

/** Groups these proposals' rows are in that now hold nothing: gone, as a rebuild would never write them. */
const deletes = (grain: Grain, where: string): string[] => [
  `delete from ${sumsTable(grain)} r using (select distinct ${KEY_COLUMNS}, ${step('m')} as rejection_step from ${keyed(grain, '1 as one', 'proposal_facts f', where)}) k
   where ${tuple('r', SUMS_KEY)} = ${tuple('k', SUMS_KEY)} and r.received = 0`,
  `delete from ${durationsTable(grain)} r
   using (select distinct ${KEY_COLUMNS}, m.pair, m.days from ${keyed(grain, 'p.pair, p.days', WITH_DURATIONS, `${where} and p.days is not null`)} where ${kept('m')}) k
   where ${tuple('r', DURATIONS_KEY)} = ${tuple('k', DURATIONS_KEY)} and r.n = 0`,
];

/** Several statements in one round trip: every one but the last as a data-modifying CTE. */
function chained(statements: string[]): string {
  const last = statements[statements.length - 1]!;
  return `with ${statements
    .slice(0, -1)
    .map((s, i) => `s${i} as (${s})`)
    .join(', ')} ${last}`;
}

/**
 * Add (sign 1) or take away (sign -1) the contributions of these proposals as their facts rows
 * read now. The projection takes a batch's proposals away before applying it and adds them back
 * after, so a rollup row always equals the sum over the facts, and a replayed event nets nothing.
 */
export async function shiftRollups(trx: Knex.Transaction | Knex, ids: readonly string[] | null, sign: 1 | -1): Promise<void> {
  const { where, bindings } = rows(ids);
  const grains = Object.keys(GRAINS) as Grain[];
  const add = grains.flatMap((grain) => upserts(grain, where, sign));
  await trx.raw(
    chained(add),
    add.flatMap(() => bindings),
  );
  if (sign === 1) return;
  // A separate statement: a CTE's changes are invisible to the rest of its statement.
  const remove = grains.flatMap((grain) => deletes(grain, where));
  await trx.raw(
    chained(remove),
    remove.flatMap(() => bindings),
  );
}
