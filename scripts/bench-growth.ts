/**
 * `npm run bench:growth [-- [--quick] --events 1000000,5000000 --tenants 1,100 --deliveries 1000000 --rounds 6 --seconds 10]`:
 * whether the service slows as its data grows. Two databases on one cluster, each served by the
 * service as `npm start` runs it: a small one (a tenant, a few reports) and a grown one (the same,
 * plus filler), measured in paired rounds, rotated:
 *
 *   append latency: 8 writers appending one event each to streams of their own, --seconds / 2,
 *                   straight to the store (p99);
 *   GET report:     GET /v2/report/{id} over the tenant's reports, 16 closed-loop clients for
 *                   --seconds (scripts/bench-http-load.ts; p99).
 *
 * Grown cases: each --events size with each --tenants count (filler: collections of 1,000 events
 * decided by the collection decider (scripts/bench-seed.ts), spread over that many organizations,
 * written to the store and brought into every read model by `projections:rebuild -- --all`
 * before the service starts), and --deliveries stored webhook deliveries (delivered rows) with
 * the small log. Every case is measured once no projection's
 * checkpoint moves.
 * Target (issue 38): each p99 within 1.2x of the small case's (small p99 / grown p99 >= 0.83 on
 * the interval's lower bound). A grown database is dropped before the next is seeded.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_CPF_POLICY } from '../application/credit-policy/demo-policies.ts';
import { COLLECTION_TRAIL_PROJECTION } from '../projections/collection/trail-projection.ts';
import type { TestDatabase } from '../test/support/db.ts';
import { runClient } from './bench-client.ts';
import { benchHeader, disturbedBaseline, loadNow, pairedRounds, ratioInterval, runBench, verdict } from './bench-method.ts';
import { seedTrails } from './bench-seed.ts';
import { benchDatabase, benchFlags, npmRun, projectionsSettled, provisionOverCli, type ServiceProcess, startServiceProcess } from './bench-service.ts';
import type { PostgresEventStore } from '../platform/eventstore/postgres.ts';

const flags = benchFlags({
  events: { full: '1000000,5000000', quick: '20000' },
  tenants: { full: '1,100', quick: '1,10' },
  deliveries: { full: '1000000', quick: '20000' },
  rounds: { full: '6', quick: '5' },
  seconds: { full: '10', quick: '2' },
});
const list = (text: string) =>
  text
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
const ROUNDS = Number(flags.rounds);
const SECONDS = Number(flags.seconds);
const REPORTS = 50;
const WRITERS = 8;
const TARGET = 1 / 1.2;
const LIMITS = { RATE_LIMIT_PER_CREDENTIAL: '10000000', RATE_LIMIT_PER_ORGANIZATION: '10000000' };

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

interface Deployment {
  name: string;
  database: TestDatabase;
  store: PostgresEventStore;
  service: ServiceProcess;
  dataDir: string;
  token: string;
  ids: string[];
}

/** A database, its service, a tenant with the demo policy and REPORTS finalized reports. */
async function deployment(name: string, grow: (store: PostgresEventStore, database: TestDatabase) => Promise<string>): Promise<Deployment> {
  const { database, store } = await benchDatabase();
  const grown = await grow(store, database);
  const dataDir = mkdtempSync(join(tmpdir(), 'credit-bench-growth-'));
  let service: ServiceProcess | undefined;
  try {
    // The filler reaches the read models before the service starts, as an operator brings them up
    // to date over a large log (`projections:rebuild -- --all`): no catch-up shares the service's
    // CPU with the rounds (docs/benchmarks.md says how long this takes a million).
    const rebuilding = performance.now();
    const output = await npmRun('projections:rebuild', ['--all'], database, dataDir);
    // "<name>: <events> events in <seconds> s", one line a projection: the slowest three are named.
    const slowest = output
      .split('\n')
      .filter((line) => / events in [\d.]+ s$/.test(line))
      .sort((a, b) => Number(b.split(' ').at(-2)) - Number(a.split(' ').at(-2)))
      .slice(0, 3);
    const rebuilt = `read models rebuilt in ${((performance.now() - rebuilding) / 1000).toFixed(0)} s (${slowest.join(', ')})`;
    service = await startServiceProcess(database, LIMITS, { dataDir });
    // Until every projection is done with the log, a tenant provisioned or reports created would
    // wait on it, and a round measured then would measure it.
    await projectionsSettled(database, await store.headPosition());
    const tenant = await provisionOverCli(service, database, 'Bench');
    const headers = { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' };
    const policy = (await (await fetch(`${service.url}/credit-policy/policy`, { method: 'POST', headers, body: JSON.stringify(DEMO_CPF_POLICY) })).json()) as { id: string };
    const created = await runClient<{ ids: string[] }>('./bench-http-load.ts', {
      BENCH_URLS: JSON.stringify([service.url]),
      BENCH_TOKEN: tenant.token,
      BENCH_POLICY_ID: policy.id,
      BENCH_POST_EVERY: '1',
      BENCH_CLIENTS: '4',
      BENCH_SECONDS: '2',
    });
    const behind = await projectionsSettled(database, await store.headPosition());
    if (behind.includes(COLLECTION_TRAIL_PROJECTION)) throw new Error(`${name}: the trail's read model is short of the log's head`);
    await database.knex.raw('vacuum analyze');
    console.log(`${name}: ${grown}; ${rebuilt}; ${created.ids.length} reports; service pid ${service.pid}; ${loadNow()}`);
    return { name, database, store, service, dataDir, token: tenant.token, ids: created.ids.slice(0, REPORTS) };
  } catch (error) {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

async function close(d: Deployment): Promise<void> {
  await d.service.stop();
  rmSync(d.dataDir, { recursive: true, force: true });
  await d.store.close();
  await d.database.drop();
}

/** p99 of one-event appends by WRITERS writers for `ms`. */
async function appendP99(store: PostgresEventStore, ms: number): Promise<number> {
  const latencies: number[] = [];
  const deadline = performance.now() + ms;
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      while (performance.now() < deadline) {
        const started = performance.now();
        await store.appendToStream(`growth-${w}`, [{ type: 'GrowthProbe', data: { w, at: Date.now() } }], { expectedRevision: 'any' });
        latencies.push(performance.now() - started);
      }
    }),
  );
  return percentile(
    latencies.sort((a, b) => a - b),
    99,
  );
}

async function getP99(d: Deployment): Promise<number> {
  const result = await runClient<{ latencies: Array<[number, number]>; errors: number }>('./bench-http-load.ts', {
    BENCH_URLS: JSON.stringify([d.service.url]),
    BENCH_TOKEN: d.token,
    BENCH_IDS: JSON.stringify(d.ids),
    BENCH_CLIENTS: '16',
    BENCH_SECONDS: String(SECONDS),
  });
  if (result.errors) throw new Error(`${d.name}: ${result.errors} GETs failed`);
  return percentile(
    result.latencies.map(([, ms]) => ms).sort((a, b) => a - b),
    99,
  );
}

/** Paired rounds small/grown; prints both figures and the two verdicts. */
async function compare(small: Deployment, grown: Deployment): Promise<void> {
  const rounds = await pairedRounds(
    {
      small: async () => ({ append: await appendP99(small.store, (SECONDS * 1000) / 2), get: await getP99(small) }),
      grown: async () => ({ append: await appendP99(grown.store, (SECONDS * 1000) / 2), get: await getP99(grown) }),
    },
    ROUNDS,
  );
  for (const what of ['append', 'get'] as const) {
    const label = what === 'append' ? `append p99 (${WRITERS} writers)` : 'GET /v2/report/{id} p99 (16 clients)';
    const smallFigures = rounds.small.map((r) => r[what]);
    const grownFigures = rounds.grown.map((r) => r[what]);
    console.log(`  ${label}: small ${smallFigures.map((f) => f.toFixed(1)).join(', ')} ms; ${grown.name} ${grownFigures.map((f) => f.toFixed(1)).join(', ')} ms`);
    // Latencies: the small case's first, so the ratio reads "higher is better" (scripts/bench-method.ts).
    console.log(
      `  ${verdict(
        `${label}, small/${grown.name} (within 1.2x)`,
        ratioInterval(smallFigures, grownFigures),
        Number(TARGET.toFixed(2)),
        disturbedBaseline(
          'small',
          smallFigures.map((f) => 1 / f),
        ),
      )}`,
    );
  }
}

await runBench(async () => {
  console.log(benchHeader('bench:growth'));
  const small = await deployment('small', async () => 'no filler');
  try {
    const cases: Array<[string, (store: PostgresEventStore, database: TestDatabase) => Promise<string>]> = [];
    for (const events of list(flags.events!)) {
      for (const tenants of list(flags.tenants!)) {
        const name = `${events} events, ${tenants} tenants`;
        cases.push([
          name,
          async (store) => {
            const organizations = Array.from({ length: tenants }, (_, i) => (i + 1).toString(16).padStart(24, 'd'));
            const started = performance.now();
            await seedTrails(store, organizations, events, 1000, (done) => process.stderr.write(`${name}: seeded ${done}\n`));
            return `${events} trail entries over ${tenants} organizations appended in ${((performance.now() - started) / 1000).toFixed(0)} s`;
          },
        ]);
      }
    }
    for (const deliveries of list(flags.deliveries!)) {
      cases.push([
        `${deliveries} deliveries`,
        async (_store, database) => {
          await database.knex.raw(
            `insert into webhook_deliveries (id, subscription_id, organization_id, event_id, event_name, family, body, occurred_at, status, attempts)
             select lpad(to_hex(i), 24, '0'), lpad(to_hex(i % 10), 24, 'a'), lpad(to_hex(i % 100), 24, 'b'), 'event-' || i, 'report.status.changed', 'named',
                    '{"id":"' || i || '","type":"report.status.changed","data":{}}', now() - (i || ' seconds')::interval, 'delivered', 1
             from generate_series(1, ?) i`,
            [deliveries],
          );
          return `${deliveries} delivered webhook deliveries stored`;
        },
      ]);
    }
    for (const [name, grow] of cases) {
      const grown = await deployment(name, grow);
      try {
        console.log(`${name} against the small case, ${ROUNDS} rounds rotated; ${loadNow()}`);
        await compare(small, grown);
      } finally {
        await close(grown);
      }
    }
  } finally {
    await close(small);
  }
});
