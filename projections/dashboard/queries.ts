import type { Knex } from 'knex';
import { CYCLE_PAIRS, type DashboardData, type Dim } from '../../domain/dashboard/blocks.ts';
import type { Measures } from '../../domain/dashboard/indicators.ts';
import { DAY_MS, type DashboardRange } from '../../domain/dashboard/period.ts';
import { openStatuses } from '../../domain/dashboard/sla.ts';
import type { Sla } from '../../domain/dashboard/filters.ts';
import { KEY_SQL, MEASURES, TO_ISSUE } from './contribution.ts';
import { durationsSource, factsFilter, grouped, join, placementOf, planOf, scanCte, sql, sumsSource, type DashboardFilter, type Sql } from './sources.ts';

export type { DashboardFilter } from './sources.ts';

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
/** Enough for the groupings to hash in memory instead of sorting on disk. */
const WORK_MEM = '32MB';

const measuresOf = (row: Record<string, unknown>) => Object.fromEntries(MEASURES.map((m) => [m.name, Number(row[m.column])])) as Measures;
const SUMS = MEASURES.map((m) => `sum(${m.column})::bigint as ${m.column}`).join(', ');

/** `case status when ... then status_changed_at < (now - days)`: past the sla of its status. */
function outOfSlaSql(q: DashboardQuery): Sql {
  const limited = Object.entries(q.sla);
  if (!limited.length) return sql('false');
  return sql(
    `(case f.status ${limited.map(() => 'when ? then f.status_changed_at < ?').join(' ')} else false end)`,
    limited.flatMap(([status, days]) => [status, new Date(q.now - days! * DAY_MS)]),
  );
}

/** Proposals open now (the sla decides whether DRAFT is open), through the filters. */
function openWhere(q: DashboardQuery): Sql {
  const open = openStatuses(q.sla).filter((s) => !q.filter.status?.length || q.filter.status.includes(s));
  const { status: _status, ...dims } = q.filter;
  const filter = factsFilter(dims);
  return sql(`f.organization_id = ? and f.status = any(?)${filter.sql}`, [q.organizationId, open, ...filter.bindings]);
}

/**
 * Every block's rows in one statement, each block a json array column: one round trip, one
 * snapshot, and a relation named in `shared` (materialized once) read by every block that needs it
 * instead of each block scanning the facts again.
 */
function oneStatement<Block extends string>(shared: Array<[string, Sql]>, blocks: Record<Block, Sql>): Sql & { blocks?: Block } {
  const withs = join(
    shared.map(([name, s]) => sql(`${name} as materialized (${s.sql})`, s.bindings)),
    ', ',
  );
  const columns = join(
    (Object.entries(blocks) as Array<[Block, Sql]>).map(([name, s]) => sql(`(select coalesce(json_agg(x), '[]'::json) from (${s.sql}) x) as ${name}`, s.bindings)),
    ', ',
  );
  return sql(`${shared.length ? `with ${withs.sql} ` : ''}select ${columns.sql}`, [...withs.bindings, ...columns.bindings]);
}

async function readAll(trx: Knex.Transaction, q: DashboardQuery): Promise<DashboardData> {
  const plan = planOf(q.organizationId, q.filter, q.range, q.compare);
  const period = (source: Sql, select: string, groupBy: string) =>
    sql(`select ${select} from (${source.sql}) s where s.t >= ? and s.t < ? group by ${groupBy}`, [...source.bindings, new Date(q.range.from), new Date(q.range.to)]);

  // Open proposals (openNow, outOfSla, aging, the five oldest) are read from the facts once.
  const where = openWhere(q);
  const out = outOfSlaSql(q);
  const openFacts = sql(`select f.id, f.status, f.status_changed_at, f.created_at as t, ${KEY_SQL[q.dim]} as key, ${out.sql} as out_of_sla from proposal_facts f where ${where.sql}`, [
    ...out.bindings,
    ...where.bindings,
  ]);
  const openSource = sql('select t, key, out_of_sla from open_facts where t >= ? and t < ?', [new Date(plan.scanFrom), new Date(plan.scanTo)]);
  const openCounts = 'count(*)::int as open_now, count(*) filter (where out_of_sla)::int as out_of_sla';
  const since = (days: number) => new Date(q.now - days * DAY_MS);
  const shared: Array<[string, Sql]> = [['open_facts', openFacts], ...(plan.scanOnce ? [['scan', scanCte(plan)] as [string, Sql]] : [])];
  const statement = oneStatement(shared, {
    by_week: grouped(plan, sumsSource(plan, 'all'), 'week', ['status', 'step'], SUMS),
    by_key: grouped(plan, sumsSource(plan, q.dim), 'key', [], SUMS),
    to_issue_by_week: grouped(plan, durationsSource(plan, 'all', [TO_ISSUE]), 'week', ['days'], 'sum(n)::bigint as n'),
    to_issue_by_key: grouped(plan, durationsSource(plan, q.dim, [TO_ISSUE]), 'key', ['days'], 'sum(n)::bigint as n'),
    cycle: period(durationsSource(plan, 'all', CYCLE_PAIRS), 'pair, days, sum(n)::bigint as n', 'pair, days'),
    mix: period(sumsSource(plan, 'product'), 'key, sum(received)::bigint as count, sum(requested_cents)::bigint as requested', 'key'),
    open_by_week: grouped(plan, openSource, 'week', [], openCounts),
    open_by_key: grouped(plan, openSource, 'key', [], openCounts),
    aging: sql(
      `select status, count(*) filter (where status_changed_at > ?)::int as up_to2,
              count(*) filter (where status_changed_at <= ? and status_changed_at > ?)::int as up_to7,
              count(*) filter (where status_changed_at <= ?)::int as over7, count(*)::int as total, count(*) filter (where out_of_sla)::int as out_of_sla
       from open_facts group by status`,
      [since(3), since(3), since(8), since(8)],
    ),
    oldest: sql(
      `select f.id, f.name, f.document, f.status, f.status_changed_at, f.correspondent_id, f.origin
       from (select id from open_facts order by status_changed_at, id limit 5) o join proposal_facts f on f.id = o.id order by f.status_changed_at, f.id`,
    ),
    products: sql(`select key, content->>'name' as name from catalog_products where organization_id = ?`, [q.organizationId]),
    portfolios: sql(`select id, content->>'name' as name from catalog_portfolios where organization_id = ?`, [q.organizationId]),
  });
  // One row always: a select of subqueries only.
  const [blocks] = (await trx.raw(statement.sql, statement.bindings as Knex.RawBinding[])).rows as Array<Record<NonNullable<(typeof statement)['blocks']>, Array<Record<string, unknown>>>>;
  const { by_week: byWeek, by_key: byKey, cycle, mix, aging, oldest, products, portfolios } = blocks!;
  const main = [...byWeek, ...byKey].map((row) => ({ ...placementOf(row), status: (row.status as string) ?? null, step: (row.step as string) ?? null, measures: measuresOf(row) }));
  const toIssueRows = [...blocks!.to_issue_by_week, ...blocks!.to_issue_by_key];
  const open = [...blocks!.open_by_week, ...blocks!.open_by_key];

  return {
    main,
    toIssue: toIssueRows.map((row) => ({ ...placementOf(row), days: row.days as number, n: Number(row.n) })),
    cycle: cycle.map((row) => ({ pair: row.pair as string, days: row.days as number, n: Number(row.n) })),
    open: open.map((row) => ({ ...placementOf(row), openNow: row.open_now as number, outOfSla: row.out_of_sla as number })),
    mix: mix.map((row) => ({ productKey: row.key as string, count: Number(row.count), requestedCents: Number(row.requested) })),
    aging: aging.map((row) => ({
      status: row.status as string,
      upTo2: row.up_to2 as number,
      upTo7: row.up_to7 as number,
      over7: row.over7 as number,
      total: row.total as number,
      outOfSla: row.out_of_sla as number,
    })),
    oldest: oldest.map((row) => ({
      id: row.id as string,
      name: row.name as string,
      document: row.document as string,
      status: row.status as string,
      statusChangedAt: new Date(row.status_changed_at as string).getTime(),
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
      await trx.raw(`set local work_mem = '${WORK_MEM}'`);
      return readAll(trx, q);
    });
  } catch (error) {
    if ((error as { code?: string }).code === QUERY_CANCELED) throw new DashboardTimeout('dashboard query exceeded its statement timeout');
    throw error;
  }
}
