/**
 * `npm run bench:dashboard` (`-- --quick` to prove it runs): the management dashboard over
 * BENCH_PROPOSALS proposals (default 1,000,000) of 10 tenants, on the whole service run by
 * `npm start` in a process of its own (bench-service.ts, startServiceProcess) on a throw-away
 * embedded PostgreSQL, stopped and removed at the end, also on failure.
 *
 * The data is written as events, appended by this process through our event store over the
 * service's database (ProposalCreated, then as its status implies ProposalDecided,
 * IndicativeOfferSent, OfferChosen, ProposalStatusChanged), spread over the 12 months before now,
 * and the service's proposal projection builds proposal_facts and the rollups from them as it
 * does in production; nothing is VACUUMed or ANALYZEd by the bench. Dimensions: 6 origins, 30
 * correspondents of 5 agents each (a tenth without), 8 products (2 for companies), 4 portfolios
 * (a tenth without); statuses by age (recent proposals mostly open, older ones mostly ended).
 *
 * Then, over HTTP with the dashboard's cache off (DASHBOARD_CACHE_SECONDS=0: every call runs its
 * statements), 8 clients in a process of their own (bench-dashboard-load.ts) over the 10 tenants
 * and three queries (the default 30 days, 366 days, 366 days with three filters: the facts path):
 *
 *  - cold: every (tenant, query) once, the first calls after the projection wrote the data;
 *    printed, one run, no interval;
 *  - ROUNDS rounds of SLICE_MS: per query, each round's p95; target p95 < 500 ms, judged as the
 *    ratio 500 ms / p95 >= 1 (scripts/bench-method.ts), no verdict when the p95 itself varied
 *    more than 1.5x between rounds.
 *
 * Then, for the diagnosis (not timed): the statements the slowest query runs (the application's
 * dashboardQuery and readDashboard, run here over the same database: the service's own are out
 * of reach in its process) and the EXPLAIN (ANALYZE, BUFFERS) of its slowest one, and the export
 * part (bench-dashboard-export.ts).
 */
import type { Knex } from 'knex';
import { dashboardQuery } from '../application/dashboard/dashboard.ts';
import { parseDashboardQuery, parseSla } from '../domain/dashboard/filters.ts';
import type { ProposalEvent } from '../domain/proposal/events.ts';
import { proposalStream } from '../domain/proposal/events.ts';
import type { ProposalStatus } from '../domain/proposal/statuses.ts';
import type { EventToAppend, Position } from '../platform/eventstore/port.ts';
import { createIdGenerator } from '../platform/ids.ts';
import { proposalSettings } from '../projections/catalog/queries.ts';
import { readDashboard } from '../projections/dashboard/queries.ts';
import { runClient } from './bench-client.ts';
import { benchExport } from './bench-dashboard-export.ts';
import { benchHeader, disturbedBaseline, ratioInterval, runBench, verdict } from './bench-method.ts';
import { benchDatabase, phase, provisionOverCli, setting, startServiceProcess } from './bench-service.ts';

const PROPOSALS = setting('PROPOSALS', 1_000_000, 500);
const TENANTS = 10;
const CLIENTS = 8;
const ROUNDS = setting('ROUNDS', 6, 5);
const SLICE_MS = setting('SLICE_MS', 10_000, 1_000);
/** Appends in flight while writing: the store groups them into few commits. */
const IN_FLIGHT = 64;
const TARGET_P95_MS = 500;
const STATEMENT_TIMEOUT_MS = 60_000;
const DAY = 86_400_000;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN;
const p95Of = (latencies: number[]) =>
  percentile(
    [...latencies].sort((a, b) => a - b),
    0.95,
  );
const elapsed = (started: number) => `${((performance.now() - started) / 1000).toFixed(1)} s`;

const STATUSES_RECENT: Array<[number, ProposalStatus]> = [
  [20, 'DRAFT'],
  [35, 'IN_ANALYSIS'],
  [45, 'WAITING_OPERATOR'],
  [60, 'WAITING_CUSTOMER'],
  [65, 'OFFER_ISSUED'],
  [80, 'ISSUED'],
  [92, 'REJECTED'],
  [96, 'EXPIRED'],
  [100, 'CANCELED'],
];
const STATUSES_OLDER: Array<[number, ProposalStatus]> = [
  [2, 'DRAFT'],
  [4, 'IN_ANALYSIS'],
  [6, 'WAITING_OPERATOR'],
  [8, 'WAITING_CUSTOMER'],
  [10, 'OFFER_ISSUED'],
  [50, 'ISSUED'],
  [80, 'REJECTED'],
  [90, 'EXPIRED'],
  [100, 'CANCELED'],
];
const ORIGINS = ['PUBLIC_FORM', 'OPERATOR', 'API', 'BATCH', 'CRM', 'CHANNEL'] as const;
/** Ids as the API takes them (24 hex). */
const hex24 = (n: number) => n.toString(16).padStart(24, '0');
const correspondent = (k: number) => hex24(0xc0000 + k);

/** Proposal i of n: created i/n of a year before now; dimensions and status from cheap deterministic mixes of i. */
function proposalEvents(i: number, n: number, organizationId: string, proposalId: string, now: number): EventToAppend[] {
  const [p, o, k, f, r] = [(i * 7) % 8, (i * 13 + 5) % 6, (i * 31 + 3) % 33, (i * 17 + 1) % 11, (i * 19) % 100];
  const created = now - (i / n) * 365 * DAY;
  const status = (now - created < 30 * DAY ? STATUSES_RECENT : STATUSES_OLDER).find(([below]) => r < below)![1];
  const analyzed = (['WAITING_OPERATOR', 'WAITING_CUSTOMER', 'OFFER_ISSUED', 'ISSUED', 'REJECTED', 'EXPIRED'] as ProposalStatus[]).includes(status);
  const pre = (['WAITING_CUSTOMER', 'OFFER_ISSUED', 'ISSUED', 'EXPIRED'] as ProposalStatus[]).includes(status);
  const chose = (['OFFER_ISSUED', 'ISSUED'] as ProposalStatus[]).includes(status);
  const analyzedAt = created + (i % 3) * DAY + 2 * 3_600_000;
  const choseAt = analyzedAt + (1 + (i % 4)) * DAY;
  const iso = (ms: number) => new Date(Math.min(ms, now)).toISOString();
  const requested = 100_000 * (1 + ((i * 3) % 50));
  const base = { proposalId, organizationId };
  const offerId = `o${proposalId}`;
  const events: ProposalEvent[] = [
    {
      type: 'ProposalCreated',
      data: {
        ...base,
        at: iso(created),
        createdAt: iso(created),
        userId: 'bench',
        document: String(i).padStart(11, '0'),
        entityType: p < 2 ? 'COMPANY' : 'PERSON',
        name: `Cliente ${i}`,
        kind: 'FINANCING',
        origin: ORIGINS[o]!,
        correspondentId: k < 30 ? correspondent(k) : null,
        agentId: k < 30 ? hex24(0xa0000 + k * 5 + (i % 5)) : null,
        productId: `p${p}`,
        productKey: `produto-${p}`,
        productName: `Produto ${p}`,
        fixedAmountCents: null,
        portfolioId: f < 10 ? hex24(4096 + (f % 4)) : null,
        portfolioName: f < 10 ? `Carteira ${f % 4}` : null,
        externalId: null,
        requestedAmountCents: requested,
        requestedTermMonths: 12,
        contact: null,
      },
    },
  ];
  if (analyzed) {
    const step = status === 'REJECTED' ? (['politica', 'score', 'documentos', null] as const)[i % 4]! : null;
    events.push({ type: 'ProposalDecided', data: { ...base, at: iso(analyzedAt), executionId: 'bench', decision: status === 'REJECTED' ? 'REJECTED' : 'APPROVED', step } });
  }
  if (pre) {
    events.push({
      type: 'IndicativeOfferSent',
      data: {
        ...base,
        at: iso(analyzedAt),
        executionId: 'bench',
        offerId,
        round: 1,
        linkHash: proposalId.padStart(64, '0'),
        minAmountCents: requested / 2,
        maxAmountCents: requested,
        minTermMonths: 6,
        maxTermMonths: 24,
        rateBpsYear: 2400,
        rate: null,
        model: 'PRICE',
        validUntil: iso(analyzedAt + 7 * DAY),
      },
    });
  }
  if (chose) {
    events.push({
      type: 'OfferChosen',
      data: { ...base, at: iso(choseAt), executionId: null, offerId, round: 1, amountCents: (requested * 8) / 10, termMonths: 12, reason: null, by: i % 2 ? 'OPERATOR' : 'CUSTOMER', userId: null },
    });
  }
  if (status !== 'DRAFT') {
    const at = chose ? choseAt + 2 * DAY : analyzed ? analyzedAt : created + (i % 5) * DAY;
    events.push({ type: 'ProposalStatusChanged', data: { ...base, at: iso(at), from: 'DRAFT', to: status, reason: null, by: 'bench', executionId: null } });
  }
  return events.map((e) => ({ type: e.type, data: e.data as unknown as Record<string, unknown> }));
}

const after = (a: Position, b: Position) => a.commit > b.commit || (a.commit === b.commit && a.prepare >= b.prepare);

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

await runBench(async () => {
  console.log(benchHeader('bench:dashboard'));
  const { database, store, cpu } = await benchDatabase();
  const db = database.knex;
  const ids = createIdGenerator();
  const service = await startServiceProcess(database, {
    DASHBOARD_CACHE_SECONDS: '0',
    DASHBOARD_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    RATE_LIMIT_PER_CREDENTIAL: '1000000',
    RATE_LIMIT_PER_ORGANIZATION: '1000000',
  });
  try {
    const serviceCpu = await cpu(service.pid);
    const tenants: Array<{ organizationId: string; token: string }> = [];
    for (let t = 0; t < TENANTS; t++) tenants.push(await provisionOverCli(service, database, `Bench ${t}`));
    const now = Date.now();

    // Written as events; the proposal projection (in the service, as shipped) builds the facts and rollups.
    await phase('events appended and projected (service process and PostgreSQL)', serviceCpu, async () => {
      const started = performance.now();
      let next = 1;
      let last: Position = { commit: 0n, prepare: 0n };
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          for (let i = next++; i <= PROPOSALS; i = next++) {
            const id = ids.objectId();
            const tenant = tenants[i % TENANTS]!;
            const { position } = await store.appendToStream(proposalStream(id), proposalEvents(i, PROPOSALS, tenant.organizationId, id, now), { expectedRevision: 'no_stream' });
            if (after(position, last)) last = position;
          }
        }),
      );
      const events = Number((await db.raw(`select count(*)::int as n from events where category = 'proposal'`)).rows[0].n);
      console.log(`appended ${PROPOSALS} proposals (${events} events) over ${TENANTS} tenants in ${elapsed(started)}`);
      const count = async (table: string) => Number((await db(table).count({ n: '*' }))[0]!.n);
      // Until the projection's checkpoint passes the last append; a projection that stops moving
      // (an event it parked, a failing batch) fails the bench rather than hanging it.
      for (let moved = performance.now(), seen = ''; ; await new Promise((resolve) => setTimeout(resolve, 200))) {
        const row = await db('projection_checkpoints').where({ name: 'proposal' }).first('commit_position', 'prepare_position');
        if (row && after({ commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) }, last)) break;
        if (JSON.stringify(row) !== seen) [seen, moved] = [JSON.stringify(row), performance.now()];
        if (performance.now() - moved > 120_000) {
          throw new Error(`the projection stopped at ${await count('proposal_facts')} proposals (checkpoint ${seen}, ${await count('projection_parked_events')} events parked)`);
        }
      }
      const facts = await count('proposal_facts');
      if (facts !== PROPOSALS) throw new Error(`the projection holds ${facts} proposals, not ${PROPOSALS}`);
      console.log(
        `projected: ${facts} proposals in proposal_facts and their rollups, ${elapsed(started)} from the first append (${Math.round(events / ((performance.now() - started) / 1000))} events/s)`,
      );
    });

    const to = new Date(Math.floor((now - 3 * 3_600_000) / DAY) * DAY + 27 * 3_600_000);
    const yearFrom = new Date(to.getTime() - 366 * DAY).toISOString();
    const queries: Array<[string, string]> = [
      ['30 days (default)', ''],
      ['366 days', `from=${yearFrom}`],
      ['366 days, 3 filters', `from=${yearFrom}&origin=API,CRM&productKey=produto-1,produto-2&correspondentId=${[1, 2, 3].map(correspondent).join(',')}`],
    ];
    const clients = (mode: 'cold' | 'rounds') =>
      runClient<Array<Record<string, number[]>>>('./bench-dashboard-load.ts', {
        BENCH_URL: service.url,
        BENCH_TOKENS: JSON.stringify(tenants.map((t) => t.token)),
        BENCH_QUERIES: JSON.stringify(queries),
        BENCH_CLIENTS: String(CLIENTS),
        BENCH_MODE: mode,
        BENCH_ROUNDS: String(ROUNDS),
        BENCH_SLICE_MS: String(SLICE_MS),
      });

    const [cold] = await phase('cold (service process and PostgreSQL)', serviceCpu, () => clients('cold'));
    console.log(`cold: each of ${TENANTS} tenants x ${queries.length} queries once, ${CLIENTS} clients, the first calls after projecting (one run, no interval):`);
    for (const [name] of queries) console.log(`  ${name.padEnd(22)} p95 ${p95Of(cold![name]!).toFixed(0)} ms, max ${Math.max(...cold![name]!).toFixed(0)} ms`);

    const rounds = await phase('rounds (service process and PostgreSQL)', serviceCpu, () => clients('rounds'));
    console.log(`${ROUNDS} rounds of ${SLICE_MS / 1000} s, ${CLIENTS} clients over ${TENANTS} tenants, uncached; p95 ms per round (requests):`);
    for (const [name] of queries) {
      const p95s = rounds.map((r) => p95Of(r[name]!));
      console.log(`  ${name.padEnd(22)} ${rounds.map((r, i) => `${p95s[i]!.toFixed(0)} (${r[name]!.length})`).join(', ')}`);
    }
    for (const [name] of queries) {
      const p95s = rounds.map((r) => p95Of(r[name]!));
      const interval = ratioInterval(
        p95s.map(() => TARGET_P95_MS),
        p95s,
      );
      console.log(
        verdict(
          `${name}: ${TARGET_P95_MS} ms / p95`,
          interval,
          1,
          disturbedBaseline(
            'its p95',
            p95s.map((p) => 1 / p),
          ),
        ),
      );
    }

    // Diagnosis, not timed: where the slowest query's time goes.
    const slowest = queries.reduce((a, b) => (rounds.map((r) => p95Of(r[b[0]]!)).reduce((x, y) => x + y) > rounds.map((r) => p95Of(r[a[0]]!)).reduce((x, y) => x + y) ? b : a));
    const organizationId = tenants[0]!.organizationId;
    const parsed = parseDashboardQuery(Object.fromEntries(new URLSearchParams(slowest[1])), new Date());
    if (!parsed.ok) throw new Error(`${slowest[0]}: ${parsed.message}`);
    // The organization's sla, as the route reads it when the query gives none.
    const sla = parseSla((await proposalSettings(db, organizationId)).dashboardSla)!;
    const { statements } = await traced(db, () => readDashboard(db, dashboardQuery(organizationId, { ...parsed.value, sla: null }, sla, Date.now(), STATEMENT_TIMEOUT_MS)));
    const dashboardStatements = statements.filter((s) => /dashboard_|proposal_facts/.test(s.sql));
    console.log(`\nstatements of ${slowest[0]}, one call:`);
    for (const s of dashboardStatements) console.log(`  ${s.ms.toFixed(1).padStart(7)} ms  ${s.sql.replace(/\s+/g, ' ').slice(0, 110)}`);
    const worst = dashboardStatements.reduce((a, b) => (b.ms > a.ms ? b : a));
    const connection = await db.client.acquireConnection();
    try {
      const plan = await connection.query(`explain (analyze, buffers) ${worst.sql}`, worst.bindings);
      console.log(`\nEXPLAIN (ANALYZE, BUFFERS) of its slowest statement:\n${plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n')}`);
    } finally {
      await db.client.releaseConnection(connection);
    }
    await benchExport(service.url, db, tenants[0]!.token, organizationId, to.toISOString());
  } finally {
    await service.stop();
    await store.close();
  }
});
