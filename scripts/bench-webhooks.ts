/**
 * `npm run bench:webhooks`: named deliveries end to end on a throw-away embedded PostgreSQL, with
 * every role in this process and a receiver on 127.0.0.1. Ten subscriptions to the same event;
 * each phase appends BENCH_EVENTS report events (default 1,000, so 10,000 deliveries a phase):
 *
 *   warm-up:   a sustained phase and its bare replay first, printed but not judged;
 *   sustained: appended at BENCH_RATE events/s (default 150, i.e. 1,500 deliveries/s offered):
 *              the append-to-delivery latency a receiver sees under steady load;
 *   burst:     appended as fast as the store takes them: how fast the backlog drains;
 *   bare:      the burst's deliveries again, from a plain loop with the same concurrency that
 *              signs each body and POSTs it over a keep-alive agent: no store, no outbox, no
 *              claims, no attempt log. Each event's deliveries become available at the same
 *              offset from the start as its append came in the burst, so latencies compare.
 *
 *   floor:     the burst again for an organization without subscriptions, each event's ten bodies
 *              signed and POSTed by a plain loop as soon as its append returns: no outbox, no rows,
 *              no attempt log. Printed, not judged: the least any design that delivers only what
 *              was committed can take, since its latency holds the append's, which bare's does not.
 *
 * Burst, bare and floor run as a trio BENCH_ROUNDS times (default 3), each phase after a pause of
 * a second; every round is printed, and the ratios' verdict is on the medians. On a shared 2-core
 * machine one round's bare p99 alone varied from 106 to 466 ms between runs.
 *
 * Latency is from just before appendToStream to the receiver having the whole body; deliveries/s
 * is distinct envelope ids received over the time from the first append to the last arrival.
 * After the burst it prints where the time went (append to outbox batch, batch to first attempt), and with
 * BENCH_COUNT_QUERIES=1 the statements the burst sent. On Linux every phase also prints the CPU it
 * used, by this process's main thread, its other threads (the send lane's and the receiver's) and
 * PostgreSQL: how close the machine was to saturated, which is what queues a phase's deliveries.
 */
import http from 'node:http';
import { Worker } from 'node:worker_threads';
import { generateSigningSecret, signedHeaders } from '../application/webhook/signing.ts';
import { fillNamedBody, namedBodyTemplate, routeEvent } from '../domain/webhook/routing.ts';
import { BODY_JOIN, DELIVERY_BODY } from '../projections/webhook/bodies.ts';
import { startTestApp, type TestApp } from '../test/support/app.ts';
import { cpuUse, type CpuUse } from './cpu-use.ts';
import { provisionTenant } from '../test/support/identity.ts';
import { appendReportEvent } from '../test/support/webhook.ts';
import type { ReportFacts } from '../domain/report/public-events.ts';
import { endBench } from './bench-method.ts';

const SUBSCRIPTIONS = 10;
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 150);
const TARGET = { burstVsBare: 0.7, p99VsBare: 1.5 };
/** Burst and bare pairs per run; the verdict is on their medians. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Pause before each burst and each bare phase, so neither starts while the other's aftermath runs. */
const SETTLE_MS = 1000;

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

interface Arrival {
  id: string;
  phase: string;
  latencyMs: number;
  at: number;
}

const arrivals: Arrival[] = [];
const seen = new Set<string>();
let onArrival: (() => void) | undefined;

/**
 * The receiver runs in a worker thread, so it has an event loop (and a core) of its own, as a
 * customer's endpoint would, instead of competing with the dispatcher it measures.
 */
const RECEIVER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createServer } = require('node:http');
let batch = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    res.writeHead(204).end();
    const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    batch.push({ id: envelope.id, phase: envelope.data.benchPhase, latencyMs: at - envelope.data.benchAppendedAt, at });
  });
});
server.keepAliveTimeout = 5000;
setInterval(() => { if (batch.length) { parentPort.postMessage(batch); batch = []; } }, 10).unref();
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
`;

async function startBenchReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const worker = new Worker(RECEIVER_SOURCE, { eval: true });
  const port = await new Promise<number>((resolve) => {
    worker.on('message', (message: { port?: number } | Arrival[]) => {
      if (!Array.isArray(message)) return resolve(message.port!);
      for (const arrival of message) {
        if (seen.has(arrival.id)) continue;
        seen.add(arrival.id);
        arrivals.push(arrival);
      }
      onArrival?.();
    });
  });
  return { url: `http://127.0.0.1:${port}/bench`, close: async () => void (await worker.terminate()) };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Resolves once the receiver has `expected` arrivals in all; rejects after two minutes. */
function arrived(expected: number, phase: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${phase}: deliveries missing after 120 s`)), 120_000);
    onArrival = () => {
      if (arrivals.length < expected) return;
      clearTimeout(timer);
      resolve();
    };
  });
}

let cpu: CpuUse | null = null;

/** Starts counting a phase's CPU; the returned function prints it. */
function countCpu(phase: string): () => void {
  const start = cpu?.now();
  return () => {
    if (start) console.log(`${phase.padEnd(9)} ${cpu!.since(start)}`);
  };
}

function report(phase: string, started: number, offered: string) {
  const mine = arrivals.filter((a) => a.phase === phase);
  const seconds = (Math.max(...mine.map((a) => a.at)) - started) / 1000;
  const latencies = mine.map((a) => a.latencyMs).sort((a, b) => a - b);
  console.log(
    `${phase.padEnd(9)} (${offered}): ${mine.length} deliveries in ${seconds.toFixed(2)} s = ${Math.round(mine.length / seconds)} deliveries/s; ` +
      `append->delivery p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1)} ms`,
  );
  return { deliveriesPerSecond: mine.length / seconds, p99: percentile(latencies, 99) };
}

/**
 * One POST over the keep-alive agent. A kept-alive socket the receiver closed at the moment it
 * was reused fails with ECONNRESET before anything was received: that one is sent again, as
 * Node's documentation advises (a run of the bare loop died of it once).
 */
function post(agent: http.Agent, url: URL, body: string, headers: Record<string, string>): Promise<void> {
  return postOnce(agent, url, body, headers).catch((error: NodeJS.ErrnoException & { reusedSocket?: boolean }) => {
    if (error.code === 'ECONNRESET' && error.reusedSocket) return postOnce(agent, url, body, headers);
    throw error;
  });
}

function postOnce(agent: http.Agent, url: URL, body: string, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { agent, method: 'POST', host: url.hostname, port: url.port, path: url.pathname, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        response.resume();
        response.on('end', resolve);
        response.on('error', reject);
      },
    );
    request.on('error', (error) => reject(Object.assign(error, { reusedSocket: request.reusedSocket })));
    request.end(body);
  });
}

/**
 * The burst's own bodies (from the outbox), sent again by a plain loop: each released at its
 * event's offset in the burst, renamed so the receiver counts it apart, signed, POSTed.
 */
async function runBare(app: TestApp, receiverUrl: string, burst: { phase: string; started: number }, phase: string, concurrency: number) {
  const { rows } = (await app.app.db.raw(`select d.event_name, ${DELIVERY_BODY} as body from webhook_deliveries d ${BODY_JOIN} where ${DELIVERY_BODY} like ?`, [
    `%"benchPhase":"${burst.phase}"%`,
  ])) as { rows: Array<{ event_name: string; body: string }> };
  const items = rows
    .map((row) => {
      const envelope = JSON.parse(row.body) as { id: string; data: { benchAppendedAt: number } };
      return { event: row.event_name, envelope, offset: envelope.data.benchAppendedAt - burst.started };
    })
    .sort((a, b) => a.offset - b.offset);
  const allArrived = arrived(arrivals.length + items.length, phase);
  const secret = generateSigningSecret();
  const url = new URL(receiverUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const cpuLine = countCpu(phase);
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const { event, envelope, offset } = items[next++]!;
        const due = started + offset;
        if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
        const body = JSON.stringify({ ...envelope, id: `bare-${envelope.id}`, data: { ...envelope.data, benchPhase: phase, benchAppendedAt: due } });
        const headers = signedHeaders({ deliveryId: `bare-${envelope.id}`, event, body, secret, previousSecret: null, timestamp: Math.floor(Date.now() / 1000) });
        await post(agent, url, body, headers);
      }
    }),
  );
  await allArrived;
  agent.destroy();
  const result = report(phase, started, `${burst.phase}'s ${items.length} bodies at its pace, ${concurrency} at a time`);
  cpuLine();
  return result;
}

/** Appends the phase's events, paced at `rate` or as a burst, each one's facts to `appended` once stored. */
async function appendAll(app: TestApp, organizationId: string, phase: string, rate: number | null, appended?: (facts: ReportFacts) => void) {
  const started = Date.now();
  const appends: Promise<unknown>[] = [];
  for (let i = 0; i < EVENTS; i++) {
    if (rate) {
      const due = started + (i * 1000) / rate;
      if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
    }
    const append = appendReportEvent(app, 'ReportDecided', { organizationId, benchPhase: phase, benchAppendedAt: Date.now() });
    appends.push(appended ? append.then(appended) : append);
    // A paced phase appends on its schedule whether the appends before have returned or not (one
    // at a time, an append slower than 1/rate quietly lowered the rate offered); a burst keeps a
    // few appends in flight at once.
    if (!rate && appends.length % 8 === 0) await append;
  }
  await Promise.all(appends);
  return { started, appendSeconds: (Date.now() - started) / 1000 };
}

async function runPhase(app: TestApp, organizationId: string, phase: string, rate: number | null) {
  const allArrived = arrived(arrivals.length + EVENTS * SUBSCRIPTIONS, phase);
  const cpuLine = countCpu(phase);
  const { started, appendSeconds } = await appendAll(app, organizationId, phase, rate);
  await allArrived;
  const offered = `${rate ? `${rate} events/s offered = ${rate * SUBSCRIPTIONS} deliveries/s, ` : ''}all appended in ${appendSeconds.toFixed(2)} s`;
  const result = { ...report(phase, started, offered), started, phase };
  cpuLine();
  return result;
}

/**
 * A burst for an organization that has no subscription (so the outbox makes no row for it), each
 * event's bodies built as the outbox builds them, signed and POSTed, `concurrency` at a time, as
 * soon as its append has returned.
 */
async function runFloor(app: TestApp, receiverUrl: string, organizationId: string, phase: string, concurrency: number) {
  const allArrived = arrived(arrivals.length + EVENTS * SUBSCRIPTIONS, phase);
  const secret = generateSigningSecret();
  const url = new URL(receiverUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const queue: Array<{ id: string; event: string; body: string }> = [];
  let inFlight = 0;
  const pump = () => {
    for (; inFlight < concurrency && queue.length; inFlight++) {
      const { id, event, body } = queue.shift()!;
      const headers = signedHeaders({ deliveryId: id, event, body, secret, previousSecret: null, timestamp: Math.floor(Date.now() / 1000) });
      void post(agent, url, body, headers).finally(() => {
        inFlight--;
        pump();
      });
    }
  };
  const cpuLine = countCpu(phase);
  const { started, appendSeconds } = await appendAll(app, organizationId, phase, null, (facts) => {
    const routed = routeEvent('ReportDecided', { ...facts })!;
    const template = namedBodyTemplate({ event: routed.publicName, occurredAt: new Date().toISOString(), organizationId, data: routed.data });
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const id = `${phase}-${facts.reportId}-${i}`;
      queue.push({ id, event: routed.publicName, body: fillNamedBody(template, id) });
    }
    pump();
  });
  await allArrived;
  agent.destroy();
  const result = report(phase, started, `append, then sign and POST at once, ${concurrency} at a time; all appended in ${appendSeconds.toFixed(2)} s`);
  cpuLine();
  return result;
}

/**
 * Where a phase's time went, per delivery, from the rows themselves: append to the start of the
 * outbox batch that made its row (a row's created_at is its transaction's start), batch to the
 * first attempt's start (the batch's own transaction, then hand-off or claim, and queueing in the
 * dispatcher), attempt to arrival at the receiver; then the same stages for the slowest 1% (the
 * p99's tail) alone.
 */
async function breakdown(app: TestApp, phase: string) {
  const result = await app.app.db.raw(
    `select d.id, (extract(epoch from d.created_at) * 1000 - ((${DELIVERY_BODY})::jsonb #>> '{data,benchAppendedAt}')::float8) as to_batch,
            extract(epoch from (a.started_at - d.created_at)) * 1000 as to_attempt,
            extract(epoch from a.started_at) * 1000 as attempt_at
       from webhook_deliveries d ${BODY_JOIN} join webhook_delivery_attempts a on a.delivery_id = d.id and a.attempt = 1
      where ${DELIVERY_BODY} like ?`,
    [`%"benchPhase":"${phase}"%`],
  );
  const arrivedAt = new Map(arrivals.filter((a) => a.phase === phase).map((a) => [a.id, a]));
  const rows = (result.rows as Array<{ id: string; to_batch: number; to_attempt: number; attempt_at: number }>).map((r) => {
    const arrival = arrivedAt.get(r.id);
    return { toBatch: Number(r.to_batch), toAttempt: Number(r.to_attempt), toArrival: arrival ? arrival.at - Number(r.attempt_at) : NaN, total: arrival?.latencyMs ?? NaN };
  });
  const line = (name: string, values: number[]) => {
    const sorted = values.sort((a, b) => a - b);
    return `${name} p50 ${Math.round(percentile(sorted, 50))} ms, p99 ${Math.round(percentile(sorted, 99))} ms`;
  };
  const mean = (values: number[]) => Math.round(values.reduce((a, b) => a + b, 0) / values.length);
  console.log(
    `${phase.padEnd(9)} where the time went: ${line('append->batch', rows.map((r) => r.toBatch))}; ${line('batch->attempt', rows.map((r) => r.toAttempt))}; ` +
      `${line('attempt->arrival', rows.map((r) => r.toArrival))}`,
  );
  const slowest = rows.sort((a, b) => b.total - a.total).slice(0, Math.max(1, Math.ceil(rows.length / 100)));
  console.log(
    `${phase.padEnd(9)} slowest 1% (${slowest.length}, from ${Math.round(slowest.at(-1)!.total)} ms): mean append->batch ${mean(slowest.map((r) => r.toBatch))} ms, ` +
      `batch->attempt ${mean(slowest.map((r) => r.toAttempt))} ms, attempt->arrival ${mean(slowest.map((r) => r.toArrival))} ms`,
  );
}

/** BENCH_COUNT_QUERIES=1: the statements the burst sent, by their first 90 characters, most frequent first. */
function countStatements(app: TestApp) {
  if (!process.env.BENCH_COUNT_QUERIES) return undefined;
  const counts = new Map<string, number>();
  app.app.db.on('query', (query: { sql: string }) => {
    const key = query.sql.replace(/\s+/g, ' ').slice(0, 90);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  });
  return { print: () => [...counts].sort((a, b) => b[1] - a[1]).slice(0, 25).forEach(([sql, n]) => console.log(`  ${String(n).padStart(6)} ${sql}`)) };
}

const receiver = await startBenchReceiver();
const app = await startTestApp({ LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', DB_POOL_MAX: '20', PROJECTION_POLL_MS: '50' });
try {
  cpu = cpuUse(Number((await app.app.db.raw('select pg_backend_pid() as pid')).rows[0].pid));
  const tenant = await provisionTenant(app);
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const reply = await app.call('POST', '/v1/webhook/subscriptions', { token: tenant.token, body: { url: receiver.url, events: ['report.status.changed'] } });
    if (reply.status !== 201) throw new Error(`subscription: ${JSON.stringify(reply.body)}`);
  }
  console.log(
    `bench:webhooks: ${SUBSCRIPTIONS} named subscriptions x ${EVENTS} events per phase = ${SUBSCRIPTIONS * EVENTS} signed deliveries per phase; ` +
      `receiver on 127.0.0.1; WEBHOOK_DISPATCH_CONCURRENCY=${app.app.config.WEBHOOK_DISPATCH_CONCURRENCY}`,
  );
  // Not judged: the first thousands of deliveries, ours and the bare loop's, run while their code
  // is still being compiled. Measured cold, a phase's p99 came out three to five times a warm one's.
  const warmUp = await runPhase(app, tenant.organizationId, 'warm-up', RATE);
  await runBare(app, receiver.url, warmUp, 'bare-warm-up', app.app.config.WEBHOOK_DISPATCH_CONCURRENCY);
  const sustained = await runPhase(app, tenant.organizationId, 'sustained', RATE);
  const met = sustained.deliveriesPerSecond >= 1000 && sustained.p99 < 500;
  const statements = countStatements(app);
  const ratios: Array<{ throughput: number; p99: number; burst: number; floor: number }> = [];
  const floorTenant = await provisionTenant(app);
  for (let round = 1; round <= ROUNDS; round++) {
    await settle();
    const burst = await runPhase(app, tenant.organizationId, `burst-${round}`, null);
    await breakdown(app, `burst-${round}`);
    await settle();
    const bare = await runBare(app, receiver.url, burst, `bare-${round}`, app.app.config.WEBHOOK_DISPATCH_CONCURRENCY);
    await settle();
    const floor = await runFloor(app, receiver.url, floorTenant.organizationId, `floor-${round}`, app.app.config.WEBHOOK_DISPATCH_CONCURRENCY);
    const ratio = { throughput: burst.deliveriesPerSecond / bare.deliveriesPerSecond, p99: burst.p99 / bare.p99, burst: burst.deliveriesPerSecond, floor: floor.p99 / bare.p99 };
    console.log(
      `round ${round} ours/bare: throughput ${ratio.throughput.toFixed(2)}x, p99 ${ratio.p99.toFixed(2)}x; ` +
        `floor/bare p99 ${ratio.floor.toFixed(2)}x, ours/floor p99 ${(burst.p99 / floor.p99).toFixed(2)}x`,
    );
    ratios.push(ratio);
  }
  statements?.print();
  const burstRate = median(ratios.map((r) => r.burst));
  console.log(`target (>= 1000 deliveries/s, sustained p99 < 500 ms): ${met && burstRate >= 1000 ? 'met' : 'NOT met'}`);
  const throughput = median(ratios.map((r) => r.throughput));
  const p99 = median(ratios.map((r) => r.p99));
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log(`burst ours/bare, median of ${ROUNDS} rounds: throughput ${throughput.toFixed(2)}x (target >= ${TARGET.burstVsBare}x: ${verdict(throughput >= TARGET.burstVsBare)}), ` +
    `p99 ${p99.toFixed(2)}x (target <= ${TARGET.p99VsBare}x: ${verdict(p99 <= TARGET.p99VsBare)})`);
  console.log(`floor/bare p99, median of ${ROUNDS} rounds: ${median(ratios.map((r) => r.floor)).toFixed(2)}x (not judged: an append, then the POSTs, nothing recorded)`);
} finally {
  await app.stop();
  await receiver.close();
}
await endBench(0);
