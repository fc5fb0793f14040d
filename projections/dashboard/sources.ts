import { DAY_MS, WEEK_MS, brasiliaDate, brasiliaDayStart, brasiliaWeekStart, isBrasiliaMidnight, type DashboardRange } from '../../domain/dashboard/period.ts';
import type { Placement } from '../../domain/dashboard/blocks.ts';
import type { Dim } from '../../domain/dashboard/blocks.ts';
import { DURATIONS, FILTER_COLUMN, KEY_SQL, MEASURES, dayStartSql, weekStartSql, type RollupDim } from './contribution.ts';
import { durationsTable, sumsTable, type Grain } from './rollup.ts';

/**
 * Where a dashboard's rows come from (docs/dashboard.md): without a dimension filter, whole weeks
 * from the weekly rollups, the other days of the scan from the daily ones, and the days a boundary
 * cuts (a from or to with a time of day) from the facts; with a dimension filter, everything from
 * the facts of the scan through that filter's index. Every source yields rows of one shape, so the
 * grouping above them does not know where they came from.
 */

/** List filters, already checked; an absent or empty list filters nothing. */
export type DashboardFilter = Partial<Record<Dim, readonly string[]>> & { status?: readonly string[] };

export interface Sql {
  sql: string;
  bindings: unknown[];
}
export const sql = (text: string, bindings: unknown[] = []): Sql => ({ sql: text, bindings });
export const join = (parts: Sql[], separator: string): Sql => ({ sql: parts.map((p) => p.sql).join(separator), bindings: parts.flatMap((p) => p.bindings) });

const FILTER_DIMS = Object.keys(FILTER_COLUMN) as Dim[];

/** The facts conditions of the filters (status included), each after an `and`. */
export function factsFilter(filter: DashboardFilter): Sql {
  const parts = FILTER_DIMS.filter((dim) => filter[dim]?.length).map((dim) => sql(`f.${FILTER_COLUMN[dim]} = any(?)`, [filter[dim]]));
  if (filter.status?.length) parts.push(sql('f.status = any(?)', [filter.status]));
  const all = join(parts, ' and ');
  return parts.length ? sql(` and ${all.sql}`, all.bindings) : sql('');
}

export interface Plan {
  organizationId: string;
  filter: DashboardFilter;
  range: DashboardRange;
  compare: boolean;
  scanFrom: number;
  scanTo: number;
  /** Facts ranges: the days a boundary cuts, or the whole scan with a dimension filter. */
  factRanges: Array<[number, number]>;
  /** Buckets read from each grain's rollups (first dates, Brasília). */
  buckets: Record<Grain, string[]>;
  /**
   * With a dimension filter every block reads the facts of the scan: they are read once into the
   * statement's `scan` (SCAN_CTE) and every block reads that instead of the table again.
   */
  scanOnce: boolean;
}

/** The facts columns a block reads (measures, keys, durations, flags): what `scan` keeps of each row. */
const SCAN_COLUMNS = [
  'created_at',
  'status',
  'rejection_step',
  'origin',
  'correspondent_id',
  'agent_id',
  'product_key',
  'portfolio_id',
  'entity_type',
  'fixed_amount_cents',
  'requested_cents',
  'firm_cents',
  'chosen_cents',
  'chosen_by',
  'decision',
  'analyzed_at',
  'pre_approved_at',
  'firm_offer_at',
  'chosen_at',
  'issued_at',
  'expired_without_choice',
];

export function planOf(organizationId: string, filter: DashboardFilter, range: DashboardRange, compare: boolean): Plan {
  const r = range;
  const bounds = [r.from, r.to, r.weekStarts[0]!, r.recentFrom, ...(compare ? [r.prevFrom, r.prevWeekStarts[0]!] : [])];
  const scanFrom = Math.min(...bounds);
  const scanTo = r.to;
  const base = { organizationId, filter, range, compare, scanFrom, scanTo };
  if (FILTER_DIMS.some((dim) => filter[dim]?.length)) return { ...base, factRanges: [[scanFrom, scanTo]], buckets: { daily: [], weekly: [] }, scanOnce: true };
  const cutDays = new Set(bounds.filter((b) => !isBrasiliaMidnight(b)).map(brasiliaDayStart));
  // A week with a boundary after its Monday midnight is read by days: its rows' flags differ within it.
  const splitWeeks = new Set(bounds.filter((b) => brasiliaWeekStart(b) !== b).map(brasiliaWeekStart));
  const buckets: Record<Grain, string[]> = { daily: [], weekly: [] };
  for (let week = brasiliaWeekStart(scanFrom); week < scanTo; week += WEEK_MS) {
    if (!splitWeeks.has(week)) {
      buckets.weekly.push(brasiliaDate(week));
      continue;
    }
    for (let day = week; day < week + WEEK_MS; day += DAY_MS) if (day + DAY_MS > scanFrom && day < scanTo && !cutDays.has(day)) buckets.daily.push(brasiliaDate(day));
  }
  const factRanges = [...cutDays].sort((a, b) => a - b).map((d) => [Math.max(d, scanFrom), Math.min(d + DAY_MS, scanTo)] as [number, number]);
  return { ...base, factRanges: factRanges.filter(([a, b]) => a < b), buckets, scanOnce: false };
}

function factsWhere(plan: Plan): Sql {
  const ranges = plan.factRanges.length
    ? join(
        plan.factRanges.map(([a, b]) => sql('(f.created_at >= ? and f.created_at < ?)', [new Date(a), new Date(b)])),
        ' or ',
      )
    : sql('false');
  const filter = factsFilter(plan.filter);
  return sql(`f.organization_id = ? and (${ranges.sql})${filter.sql}`, [plan.organizationId, ...ranges.bindings, ...filter.bindings]);
}

/** The `scan` of a plan that reads the facts once (planOf), for the statement's with clause. */
export function scanCte(plan: Plan): Sql {
  const where = factsWhere(plan);
  return sql(`select ${SCAN_COLUMNS.map((c) => `f.${c}`).join(', ')} from proposal_facts f where ${where.sql}`, where.bindings);
}

/** Where a block's facts rows come from: the statement's `scan`, or the table through the plan's ranges. */
function factsFrom(plan: Plan): { table: string; where: Sql } {
  return plan.scanOnce ? { table: 'scan f', where: sql('true') } : { table: 'proposal_facts f', where: factsWhere(plan) };
}

/** `select <columns> from <table> r where` the plan's buckets of one grain, for each grain that has any. */
function rollupParts(plan: Plan, dim: RollupDim, table: (grain: Grain) => string, columns: string, extra: Sql = sql('')): Sql[] {
  const status = plan.filter.status?.length ? sql(' and r.status = any(?)', [plan.filter.status]) : sql('');
  return (Object.keys(plan.buckets) as Grain[])
    .filter((grain) => plan.buckets[grain].length)
    .map((grain) =>
      sql(`select ${dayStartSql('r.day')} as t, ${columns} from ${table(grain)} r where r.organization_id = ? and r.dim = ? and r.day = any(?::date[])${status.sql}${extra.sql}`, [
        plan.organizationId,
        dim,
        plan.buckets[grain],
        ...status.bindings,
        ...extra.bindings,
      ]),
    );
}

/** Rows (t, key, status, step, measures...). */
export function sumsSource(plan: Plan, dim: RollupDim): Sql {
  const { table, where } = factsFrom(plan);
  const step = dim === 'all' ? "coalesce(f.rejection_step, '')" : "''";
  const facts = sql(
    `select f.created_at as t, ${KEY_SQL[dim]} as key, f.status, ${step} as step, ${MEASURES.map((m) => `${m.sql} as ${m.column}`).join(', ')} from ${table} where ${where.sql}`,
    where.bindings,
  );
  const columns = `r.key, r.status, r.rejection_step as step, ${MEASURES.map((m) => `r.${m.column}`).join(', ')}`;
  return join([...rollupParts(plan, dim, sumsTable, columns), facts], ' union all ');
}

/** Rows (t, key, pair, days, n) of the pairs asked. */
export function durationsSource(plan: Plan, dim: RollupDim, pairs: readonly string[]): Sql {
  const { table, where } = factsFrom(plan);
  // One select per pair: a lateral list of every pair costs a rescan per row, several times the
  // whole read when a filtered dashboard computes them over every proposal of its period.
  const facts = DURATIONS.filter(([pair]) => pairs.includes(pair)).map(([pair, days]) =>
    sql(`select f.created_at as t, ${KEY_SQL[dim]} as key, '${pair}' as pair, ${days} as days, 1 as n from ${table} where ${where.sql} and ${days} is not null`, where.bindings),
  );
  return join([...rollupParts(plan, dim, durationsTable, 'r.key, r.pair, r.days, r.n', sql(' and r.pair = any(?)', [pairs])), ...facts], ' union all ');
}

/**
 * A source's rows (alias s) grouped by creation week and the period, comparison and series they
 * are in (`week`), or by key and the period, comparison and recent week they are in (`key`).
 */
export function grouped(plan: Plan, source: Sql, by: 'week' | 'key', extras: string[], aggregates: string): Sql {
  const r = plan.range;
  const at = (a: number, b: number) => sql('(s.t >= ? and s.t < ?)', [new Date(a), new Date(b)]);
  const flags: Array<[string, Sql]> = [
    ['cur', at(r.from, r.to)],
    ['prev', plan.compare ? at(r.prevFrom, r.prevTo) : sql('false')],
    ...(by === 'week'
      ? ([
          ['cur_s', at(r.weekStarts[0]!, r.to)],
          ['prev_s', plan.compare ? at(r.prevWeekStarts[0]!, r.prevTo) : sql('false')],
        ] as Array<[string, Sql]>)
      : []),
  ];
  const recent = at(r.recentFrom, r.to);
  const week = weekStartSql('s.t');
  const place = by === 'week' ? sql(`${week} as week`) : sql(`case when ${recent.sql} then ${week} end as recent_week`, recent.bindings);
  const columns = [by === 'week' ? 'week' : 'key', ...flags.map(([name]) => name), ...(by === 'key' ? ['recent_week'] : []), ...extras];
  const x = join([place, ...flags.map(([name, condition]) => sql(`${condition.sql} as ${name}`, condition.bindings))], ', ');
  return sql(`select ${columns.join(', ')}, ${aggregates} from (select ${x.sql}, s.* from (${source.sql}) s) x group by ${columns.join(', ')}`, [...x.bindings, ...source.bindings]);
}

const ms = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string).getTime());
export function placementOf(row: Record<string, unknown>): Placement {
  const byKey = 'key' in row;
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
