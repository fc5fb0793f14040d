import type { Knex } from 'knex';
import { DAY_MS, brasiliaDate, brasiliaDayStart, isBrasiliaMidnight, type DashboardRange } from '../../domain/dashboard/period.ts';
import type { Measures } from '../../domain/dashboard/indicators.ts';
import { CYCLE_PAIRS, type DashboardData, type Placement } from '../../domain/dashboard/blocks.ts';
import { openStatuses } from '../../domain/dashboard/sla.ts';
import type { Sla } from '../../domain/proposal/dashboard-filters.ts';
import type { Dim } from '../../domain/dashboard/blocks.ts';
import { DURATIONS_SQL, FILTER_COLUMN, KEY_SQL, MEASURES, TO_ISSUE, dayStartSql, weekStartSql, type RollupDim } from './contribution.ts';

/** List filters, already checked; an absent or empty list filters nothing. */
export type DashboardFilter = Partial<Record<Dim, readonly string[]>> & { status?: readonly string[] };

export interface DashboardQuery {
  organizationId: string;
  filter: DashboardFilter;
  range: DashboardRange;
  compare: boolean;
  dim: Dim;
  sla: Sla;
  now: number;
  /** SET LOCAL statement_timeout of the read transaction. */
  statementTimeoutMs: number;
}

/** A query exceeded its statement timeout (the 502 of the dashboard). */
export class DashboardTimeout extends Error {}
const QUERY_CANCELED = '57014';

interface Sql {
  sql: string;
  bindings: unknown[];
}
const sql = (text: string, bindings: unknown[] = []): Sql => ({ sql: text, bindings });
const join = (parts: Sql[], separator: string): Sql => ({ sql: parts.map((p) => p.sql).join(separator), bindings: parts.flatMap((p) => p.bindings) });

const FILTER_DIMS = Object.keys(FILTER_COLUMN) as Dim[];
const hasDimFilter = (filter: DashboardFilter) => FILTER_DIMS.some((dim) => filter[dim]?.length);

/** The facts conditions of the filters (status included), each after an `and`. */
function factsFilter(filter: DashboardFilter): Sql {
  const parts = FILTER_DIMS.filter((dim) => filter[dim]?.length).map((dim) => sql(`f.${FILTER_COLUMN[dim]} = any(?)`, [filter[dim]]));
  if (filter.status?.length) parts.push(sql('f.status = any(?)', [filter.status]));
  const all = join(parts, ' and ');
  return parts.length ? sql(` and ${all.sql}`, all.bindings) : sql('');
}

/**
 * Which rows come from where. Without a dimension filter, whole Brasília days come from the
 * rollups and only days cut by a boundary (a from or to with a time of day) from the facts; with
 * one, everything comes from the facts of the period through that filter's index.
 */
interface Plan {
  scanFrom: number;
  scanTo: number;
  useRollups: boolean;
  /** Facts ranges read instead of rollup days: the days a boundary cuts, or the whole scan. */
  factRanges: Array<[number, number]>;
  /** Rollup days: first and last date, and the cut days left out. */
  rollupDays: { first: string; last: string; except: string[] } | null;
}

function planOf(q: DashboardQuery): Plan {
  const r = q.range;
  const bounds = [r.from, r.to, r.weekStarts[0]!, r.recentFrom, ...(q.compare ? [r.prevFrom, r.prevWeekStarts[0]!] : [])];
  const scanFrom = Math.min(...bounds);
  const scanTo = r.to;
  if (hasDimFilter(q.filter)) return { scanFrom, scanTo, useRollups: false, factRanges: [[scanFrom, scanTo]], rollupDays: null };
  const cutDays = [...new Set(bounds.filter((b) => !isBrasiliaMidnight(b)).map(brasiliaDayStart))].sort((a, b) => a - b);
  return {
    scanFrom,
    scanTo,
    useRollups: true,
    factRanges: cutDays.map((d) => [Math.max(d, scanFrom), Math.min(d + DAY_MS, scanTo)] as [number, number]).filter(([a, b]) => a < b),
    rollupDays: { first: brasiliaDate(scanFrom), last: brasiliaDate(scanTo - 1), except: cutDays.map(brasiliaDate) },
  };
}

function factRangesSql(plan: Plan): Sql {
  if (!plan.factRanges.length) return sql('false');
  return join(plan.factRanges.map(([a, b]) => sql('(f.created_at >= ? and f.created_at < ?)', [new Date(a), new Date(b)])), ' or ');
}

function rollupWhere(q: DashboardQuery, plan: Plan, dim: RollupDim): Sql {
  const days = plan.rollupDays!;
  return sql(
    `r.organization_id = ? and r.dim = ? and r.day >= ?::date and r.day <= ?::date and not (r.day = any(?::date[]))${q.filter.status?.length ? ' and r.status = any(?)' : ''}`,
    [q.organizationId, dim, days.first, days.last, days.except, ...(q.filter.status?.length ? [q.filter.status] : [])],
  );
}

const factsWhere = (q: DashboardQuery, plan: Plan): Sql => {
  const ranges = factRangesSql(plan);
  const filter = factsFilter(q.filter);
  return sql(`f.organization_id = ? and (${ranges.sql})${filter.sql}`, [q.organizationId, ...ranges.bindings, ...filter.bindings]);
};

/** Rows (t, key, status, step, measures...) of the period: rollup days and facts, alike. */
function mainSource(q: DashboardQuery, plan: Plan, dim: RollupDim): Sql {
  const columns = MEASURES.map((m) => m.column).join(', ');
  const where = factsWhere(q, plan);
  const facts = sql(
    `select f.created_at as t, ${KEY_SQL[dim]} as key, f.status, coalesce(f.rejection_step, '') as step, ${MEASURES.map((m) => `${m.sql} as ${m.column}`).join(', ')}
     from proposal_facts f where ${where.sql}`,
    where.bindings,
  );
  if (!plan.useRollups) return facts;
  const rollups = rollupWhere(q, plan, dim);
  return join([sql(`select ${dayStartSql('r.day')} as t, r.key, r.status, r.rejection_step as step, ${columns} from dashboard_daily r where ${rollups.sql}`, rollups.bindings), facts], ' union all ');
}

/** Rows (t, key, pair, days, n) of the pairs asked. */
function durationSource(q: DashboardQuery, plan: Plan, dim: RollupDim, pairs: readonly string[]): Sql {
  const where = factsWhere(q, plan);
  const facts = sql(
    `select f.created_at as t, ${KEY_SQL[dim]} as key, p.pair, p.days, 1 as n
     from proposal_facts f cross join lateral ${DURATIONS_SQL} p(pair, days) where ${where.sql} and p.pair = any(?) and p.days is not null`,
    [...where.bindings, pairs],
  );
  if (!plan.useRollups) return facts;
  const rollups = rollupWhere(q, plan, dim);
  return join([sql(`select ${dayStartSql('r.day')} as t, r.key, r.pair, r.days, r.n from dashboard_durations r where ${rollups.sql} and r.pair = any(?)`, [...rollups.bindings, pairs]), facts], ' union all ');
}

/** The placement columns of a source's rows (alias s), with the grouping sets by week and by key. */
function placed(q: DashboardQuery, source: Sql, select: string, byWeek: string[], byKey: string[]): Sql {
  const r = q.range;
  const at = (a: number, b: number) => sql('(s.t >= ? and s.t < ?)', [new Date(a), new Date(b)]);
  const cur = at(r.from, r.to);
  const prev = q.compare ? at(r.prevFrom, r.prevTo) : sql('false');
  const curSeries = at(r.weekStarts[0]!, r.to);
  const prevSeries = q.compare ? at(r.prevWeekStarts[0]!, r.prevTo) : sql('false');
  const recent = at(r.recentFrom, r.to);
  const week = weekStartSql('s.t');
  const x = sql(
    `select s.*, ${week} as week, ${cur.sql} as cur, ${prev.sql} as prev, ${curSeries.sql} as cur_s, ${prevSeries.sql} as prev_s, case when ${recent.sql} then ${week} end as recent_week from (${source.sql}) s`,
    [...cur.bindings, ...prev.bindings, ...curSeries.bindings, ...prevSeries.bindings, ...recent.bindings, ...source.bindings],
  );
  const weekSet = ['week', 'cur', 'prev', 'cur_s', 'prev_s', ...byWeek];
  const extras = [...new Set([...byWeek, ...byKey])].filter((c) => c !== 'recent_week');
  const keySet = ['key', 'cur', 'prev', ...byKey];
  return sql(
    `select grouping(key) = 0 as by_key, week, cur, prev, cur_s, prev_s, key, ${byKey.includes('recent_week') ? 'recent_week' : 'null as recent_week'}, ${extras.map((c) => `${c}, `).join('')}${select}
     from (${x.sql}) x group by grouping sets ((${weekSet.join(', ')}), (${keySet.join(', ')}))`,
    x.bindings,
  );
}

const ms = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string).getTime());
function placementOf(row: Record<string, unknown>): Placement {
  const byKey = row.by_key as boolean;
  return {
    week: byKey ? null : ms(row.week),
    cur: row.cur as boolean,
    prev: row.prev as boolean,
    curSeries: !byKey && (row.cur_s as boolean),
    prevSeries: !byKey && (row.prev_s as boolean),
    key: byKey ? (row.key as string) : null,
    recentWeek: byKey ? ms(row.recent_week) : null,
  };
}
const measuresOf = (row: Record<string, unknown>) => Object.fromEntries(MEASURES.map((m) => [m.name, Number(row[m.column])])) as Measures;

/** `case status when ... then status_changed_at < (now - days)`: past the sla of its status. */
function outOfSlaSql(q: DashboardQuery): Sql {
  const limited = Object.entries(q.sla);
  if (!limited.length) return sql('false');
  return sql(`(case f.status ${limited.map(() => 'when ? then f.status_changed_at < ?').join(' ')} else false end)`, limited.flatMap(([status, days]) => [status, new Date(q.now - days! * DAY_MS)]));
}

function openFilter(q: DashboardQuery): Sql {
  const open = openStatuses(q.sla).filter((s) => !q.filter.status?.length || q.filter.status.includes(s));
  const { status: _status, ...dims } = q.filter;
  const filter = factsFilter(dims);
  return sql(`f.organization_id = ? and f.status = any(?)${filter.sql}`, [q.organizationId, open, ...filter.bindings]);
}

async function readAll(trx: Knex.Transaction, q: DashboardQuery): Promise<DashboardData> {
  const plan = planOf(q);
  const run = async (s: Sql) => (await trx.raw(s.sql, s.bindings as Knex.RawBinding[])).rows as Array<Record<string, unknown>>;
  const sums = MEASURES.map((m) => `sum(${m.column})::bigint as ${m.column}`).join(', ');

  const main = (await run(placed(q, mainSource(q, plan, q.dim), sums, ['status', 'step'], ['recent_week']))).map((row) => ({
    ...placementOf(row),
    status: row.by_key ? null : (row.status as string),
    step: row.by_key ? null : (row.step as string),
    measures: measuresOf(row),
  }));
  const toIssue = (await run(placed(q, durationSource(q, plan, q.dim, [TO_ISSUE]), 'sum(n)::bigint as n', ['days'], ['days']))).map((row) => ({
    ...placementOf(row),
    days: row.days as number,
    n: Number(row.n),
  }));
  const cycleSource = durationSource(q, plan, 'all', CYCLE_PAIRS);
  const cycle = await run(
    sql(`select pair, days, sum(n)::bigint as n from (${cycleSource.sql}) s where s.t >= ? and s.t < ? group by pair, days`, [...cycleSource.bindings, new Date(q.range.from), new Date(q.range.to)]),
  );

  const where = openFilter(q);
  const out = outOfSlaSql(q);
  const openSource = sql(
    `select f.created_at as t, ${KEY_SQL[q.dim]} as key, ${out.sql} as out_of_sla from proposal_facts f where ${where.sql} and f.created_at >= ? and f.created_at < ?`,
    [...out.bindings, ...where.bindings, new Date(plan.scanFrom), new Date(plan.scanTo)],
  );
  const open = (await run(placed(q, openSource, 'count(*)::int as open_now, count(*) filter (where out_of_sla)::int as out_of_sla', [], []))).map((row) => ({
    ...placementOf(row),
    openNow: row.open_now as number,
    outOfSla: row.out_of_sla as number,
  }));

  const mixSource = mainSource(q, plan, 'product');
  const mix = await run(
    sql(`select key, sum(received)::bigint as count, sum(requested_cents)::bigint as requested from (${mixSource.sql}) s where s.t >= ? and s.t < ? group by key`, [
      ...mixSource.bindings,
      new Date(q.range.from),
      new Date(q.range.to),
    ]),
  );

  const since = (days: number) => new Date(q.now - days * DAY_MS);
  const aging = await run(
    sql(
      `select f.status, count(*) filter (where f.status_changed_at > ?)::int as up_to2,
              count(*) filter (where f.status_changed_at <= ? and f.status_changed_at > ?)::int as up_to7,
              count(*) filter (where f.status_changed_at <= ?)::int as over7, count(*)::int as total, count(*) filter (where ${out.sql})::int as out_of_sla
       from proposal_facts f where ${where.sql} group by f.status`,
      [since(3), since(3), since(8), since(8), ...out.bindings, ...where.bindings],
    ),
  );
  const oldest = await run(
    sql(`select f.id, f.name, f.document, f.status, f.status_changed_at, f.correspondent_id, f.origin from proposal_facts f where ${where.sql} order by f.status_changed_at, f.id limit 5`, where.bindings),
  );
  const products = await run(sql(`select key, content->>'name' as name from catalog_products where organization_id = ?`, [q.organizationId]));
  const portfolios = await run(sql(`select id, content->>'name' as name from catalog_portfolios where organization_id = ?`, [q.organizationId]));

  return {
    main,
    toIssue,
    cycle: cycle.map((row) => ({ pair: row.pair as string, days: row.days as number, n: Number(row.n) })),
    open,
    mix: mix.map((row) => ({ productKey: row.key as string, count: Number(row.count), requestedCents: Number(row.requested) })),
    aging: aging.map((row) => ({ status: row.status as string, upTo2: row.up_to2 as number, upTo7: row.up_to7 as number, over7: row.over7 as number, total: row.total as number, outOfSla: row.out_of_sla as number })),
    oldest: oldest.map((row) => ({
      id: row.id as string,
      name: row.name as string,
      document: row.document as string,
      status: row.status as string,
      statusChangedAt: ms(row.status_changed_at)!,
      correspondentId: row.correspondent_id as string | null,
      origin: row.origin as string,
    })),
    productNames: new Map(products.map((row) => [row.key as string, row.name as string])),
    portfolioNames: new Map(portfolios.map((row) => [row.id as string, row.name as string])),
  };
}

/**
 * Every read of one dashboard in one read-only snapshot (the blocks agree with each other), cut
 * off by the statement timeout: a query past it is a DashboardTimeout, not a hang.
 */
export async function readDashboard(db: Knex, q: DashboardQuery): Promise<DashboardData> {
  try {
    return await db.transaction(async (trx) => {
      await trx.raw('set transaction isolation level repeatable read, read only');
      await trx.raw(`set local statement_timeout = ${Math.max(1, Math.floor(q.statementTimeoutMs))}`);
      return readAll(trx, q);
    });
  } catch (error) {
    if ((error as { code?: string }).code === QUERY_CANCELED) throw new DashboardTimeout('dashboard query exceeded its statement timeout');
    throw error;
  }
}
