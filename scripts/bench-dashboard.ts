/**
 * `npm run bench:dashboard`: the management dashboard over 1,000,000 proposals of one organization.
 *
 * Starts the whole service on a throw-away embedded PostgreSQL with one tenant, writes
 * BENCH_PROPOSALS (default 1,000,000) proposals spread over the 12 months before now straight
 * into proposal_facts (server-side multi-row inserts from generate_series, in chunks), then builds
 * the rollups from them with the projection's own statement (shiftRollups over every row) and
 * ANALYZEs. Dimensions: 6 origins (CHANNEL among them), 30 correspondents of 5 agents each (a
 * tenth without), 8 products (2 for companies), 4 portfolios (a tenth without); statuses by age
 * (recent proposals mostly open, older ones mostly ended), with the facts their status implies.
 *
 * Then, over HTTP with the cache off (DASHBOARD_CACHE_SECONDS=0), BENCH_RUNS calls of each query
 * after one warm-up: the default 30 days, 366 days, and 366 days with three filters (origin,
 * productKey, correspondentId: the facts path). Prints p50/p95 per query against the 500 ms
 * target, the time of each SQL statement of the slowest query's last run, and the EXPLAIN
 * (ANALYZE, BUFFERS) of the slowest statement. On a shared machine the figures move with the
 * load; the load average is printed beside them.
 */
import { loadavg } from 'node:os';
import type { Knex } from 'knex';
import { DASHBOARD_TABLES, shiftRollups } from '../projections/dashboard/rollup.ts';
import { startTestApp } from '../test/support/app.ts';
import { benchExport } from './bench-dashboard-export.ts';
import { provisionTenant } from '../test/support/identity.ts';

const PROPOSALS = Number(process.env.BENCH_PROPOSALS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const CHUNK = 100_000;
const TARGET_P95_MS = 500;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN;
const elapsed = (started: number) => `${((performance.now() - started) / 1000).toFixed(1)} s`;

/** Proposal i of n: created i/n of a year before now; dimensions and status from cheap deterministic mixes of i. */
const SEED_SQL = `
with s as (
  select i, c, mod(i * 7, 8) as p, mod(i * 13 + 5, 6) as o, mod(i * 31 + 3, 33) as k, mod(i * 17 + 1, 11) as f, mod(i * 19, 100) as r,
         (cast(:now as timestamptz) - c) < interval '30 days' as recent
  from (select i, cast(:now as timestamptz) - (i::double precision / :n) * interval '365 days' as c from generate_series(cast(:lo as int), cast(:hi as int)) i) g
), t as (
  select s.*,
    case when recent then (case when r < 20 then 'DRAFT' when r < 35 then 'IN_ANALYSIS' when r < 45 then 'WAITING_OPERATOR' when r < 60 then 'WAITING_CUSTOMER'
                                when r < 65 then 'OFFER_ISSUED' when r < 80 then 'ISSUED' when r < 92 then 'REJECTED' when r < 96 then 'EXPIRED' else 'CANCELED' end)
         else (case when r < 2 then 'DRAFT' when r < 4 then 'IN_ANALYSIS' when r < 6 then 'WAITING_OPERATOR' when r < 8 then 'WAITING_CUSTOMER'
                    when r < 10 then 'OFFER_ISSUED' when r < 50 then 'ISSUED' when r < 80 then 'REJECTED' when r < 90 then 'EXPIRED' else 'CANCELED' end) end as status,
    c + (mod(i, 3) * interval '1 day') + interval '2 hours' as a,
    100000 * (1 + mod(i * 3, 50)) as req
  from s
), u as (
  select t.*,
    status in ('WAITING_OPERATOR', 'WAITING_CUSTOMER', 'OFFER_ISSUED', 'ISSUED', 'REJECTED', 'EXPIRED') as analyzed,
    status in ('WAITING_CUSTOMER', 'OFFER_ISSUED', 'ISSUED', 'EXPIRED') as pre,
    status in ('OFFER_ISSUED', 'ISSUED') as chose,
    a + ((1 + mod(i, 4)) * interval '1 day') as ch
  from t
)
insert into proposal_facts (id, organization_id, created_at, created_by, document, name, entity_type, kind, origin, correspondent_id, agent_id, product_id, product_key,
  product_name, portfolio_id, portfolio_name, status, status_changed_at, requested_cents, requested_term_months, firm_cents, chosen_cents, chosen_by, decision, rejection_step,
  analyzed_at, pre_approved_at, firm_offer_at, chosen_at, issued_at, expired_without_choice)
select lpad(to_hex(i), 24, '0'), :org, c, 'bench', lpad(i::text, 11, '0'), 'Cliente ' || i, case when p < 2 then 'COMPANY' else 'PERSON' end, 'FINANCING',
  (array['PUBLIC_FORM', 'OPERATOR', 'API', 'BATCH', 'CRM', 'CHANNEL'])[1 + o],
  case when k < 30 then 'corr-' || lpad(k::text, 2, '0') end, case when k < 30 then 'agent-' || lpad(k::text, 2, '0') || '-' || mod(i, 5) end,
  'p' || p, 'produto-' || p, 'Produto ' || p, case when f < 10 then lpad(to_hex(4096 + mod(f, 4)), 24, '0') end, case when f < 10 then 'Carteira ' || mod(f, 4) end,
  status, least(cast(:now as timestamptz), case when chose then ch + interval '2 days' when analyzed then a else c + mod(i, 5) * interval '1 day' end), req, 12,
  case when chose then req * 8 / 10 end, case when chose then req * 8 / 10 end, case when chose then (case when mod(i, 2) = 0 then 'CUSTOMER' else 'OPERATOR' end) end,
  case when status = 'REJECTED' then 'REJECTED' when analyzed then 'APPROVED' end,
  case when status = 'REJECTED' then (array['politica', 'score', 'documentos', null])[1 + mod(i, 4)] end,
  case when analyzed then a end, case when pre then a end, case when chose then least(cast(:now as timestamptz), ch + interval '1 day') end, case when chose then least(cast(:now as timestamptz), ch) end,
  case when status = 'ISSUED' then least(cast(:now as timestamptz), ch + (1 + mod(i, 5)) * interval '1 day') end, status = 'EXPIRED'
from u`;

async function seed(db: Knex, organizationId: string, now: Date) {
  let started = performance.now();
  for (let lo = 1; lo <= PROPOSALS; lo += CHUNK) {
    await db.transaction(async (trx) => {
      await trx.raw('set local statement_timeout = 0');
      await trx.raw(SEED_SQL, { now: now.toISOString(), n: PROPOSALS, lo, hi: Math.min(PROPOSALS, lo + CHUNK - 1), org: organizationId });
    });
  }
  console.log(`seeded ${PROPOSALS} proposals in ${elapsed(started)}`);
  started = performance.now();
  await db.transaction(async (trx) => {
    await trx.raw('set local statement_timeout = 0');
    await shiftRollups(trx, null, 1);
  });
  for (const table of ['proposal_facts', ...DASHBOARD_TABLES]) await db.raw(`vacuum analyze ${table}`);
  const count = async (table: string) => `${table} ${Number((await db(table).count({ n: '*' }))[0]!.n)}`;
  console.log(`rollups built in ${elapsed(started)}: ${(await Promise.all(DASHBOARD_TABLES.map(count))).join(', ')} rows`);
}

interface Statement {
  sql: string;
  bindings: unknown[];
  ms: number;
}
/** Every statement the service sends while `fn` runs, with its time (knex query / query-response events). */
async function traced<T>(db: Knex, fn: () => Promise<T>): Promise<{ result: T; statements: Statement[] }> {
  const open = new Map<string, { sql: string; bindings: unknown[]; started: number }>();
  const statements: Statement[] = [];
  const onQuery = (q: { __knexQueryUid: string; sql: string; bindings: unknown[] }) => open.set(q.__knexQueryUid, { sql: q.sql, bindings: q.bindings ?? [], started: performance.now() });
  const onResponse = (_: unknown, q: { __knexQueryUid: string }) => {
    const s = open.get(q.__knexQueryUid);
    if (s) statements.push({ sql: s.sql, bindings: s.bindings, ms: performance.now() - s.started });
  };
  db.on('query', onQuery).on('query-response', onResponse);
  try {
    return { result: await fn(), statements };
  } finally {
    db.removeListener('query', onQuery).removeListener('query-response', onResponse);
  }
}

const app = await startTestApp({ LOG_LEVEL: 'fatal', DASHBOARD_CACHE_SECONDS: '0', DASHBOARD_STATEMENT_TIMEOUT_MS: '60000', RATE_LIMIT_PER_CREDENTIAL: '1000000', RATE_LIMIT_PER_ORGANIZATION: '1000000' });
try {
  const tenant = await provisionTenant(app);
  const now = new Date();
  app.app.clock = { now: () => now };
  await seed(app.app.db, tenant.organizationId, now);

  const to = new Date(Math.floor((now.getTime() - 3 * 3_600_000) / 86_400_000) * 86_400_000 + 27 * 3_600_000);
  const yearFrom = new Date(to.getTime() - 366 * 86_400_000).toISOString();
  const queries: Array<[string, string]> = [
    ['30 days (default)', ''],
    ['366 days', `from=${yearFrom}`],
    ['366 days, 3 filters', `from=${yearFrom}&origin=API,CRM&productKey=produto-1,produto-2&correspondentId=corr-01,corr-02,corr-03`],
  ];
  const headers = { authorization: `Bearer ${tenant.token}` };
  const results: Array<{ name: string; p50: number; p95: number; statements: Statement[] }> = [];
  for (const [name, query] of queries) {
    const times: number[] = [];
    let statements: Statement[] = [];
    for (let run = 0; run <= RUNS; run++) {
      const started = performance.now();
      const traced_ = await traced(app.app.db, async () => {
        const reply = await fetch(`${app.url}/v1/proposals/dashboard?${query}`, { headers });
        if (reply.status !== 200) throw new Error(`${name}: ${reply.status} ${await reply.text()}`);
        return reply.json();
      });
      if (run > 0) times.push(performance.now() - started); // run 0 warms the caches
      statements = traced_.statements;
      if (run === 0) console.log(`${name}: received ${traced_.result.kpis.cur.received}, breakdown rows ${traced_.result.breakdown.rows.length}`);
    }
    times.sort((a, b) => a - b);
    results.push({ name, p50: percentile(times, 0.5), p95: percentile(times, 0.95), statements });
  }

  await benchExport(app, tenant.token, tenant.organizationId, to.toISOString());

  console.log(`\nload average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on ${PROPOSALS} proposals, ${RUNS} uncached runs each`);
  console.log('query                    p50 ms   p95 ms   target p95 < 500 ms');
  for (const r of results) console.log(`${r.name.padEnd(24)} ${r.p50.toFixed(0).padStart(6)}   ${r.p95.toFixed(0).padStart(6)}   ${r.p95 < TARGET_P95_MS ? 'met' : 'MISSED'}`);

  const dashboardStatementsOf = (r: (typeof results)[number]) => r.statements.filter((s) => /dashboard_|proposal_facts/.test(s.sql));
  for (const r of results) {
    console.log(`\nstatements of ${r.name}, last run:`);
    for (const s of dashboardStatementsOf(r)) console.log(`  ${s.ms.toFixed(1).padStart(7)} ms  ${s.sql.replace(/\s+/g, ' ').slice(0, 110)}`);
  }
  const slowest = results.reduce((a, b) => (b.p95 > a.p95 ? b : a));
  const dashboardStatements = dashboardStatementsOf(slowest);
  const worst = dashboardStatements.reduce((a, b) => (b.ms > a.ms ? b : a));
  const connection = await app.app.db.client.acquireConnection();
  try {
    const plan = await connection.query(`explain (analyze, buffers) ${worst.sql}`, worst.bindings);
    console.log(`\nEXPLAIN (ANALYZE, BUFFERS) of its slowest statement:\n${plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n')}`);
  } finally {
    await app.app.db.client.releaseConnection(connection);
  }
} finally {
  await app.stop();
}
