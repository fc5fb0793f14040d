/**
 * `npm run bench:webhooks`: named deliveries end to end on a throw-away embedded PostgreSQL, with
 * every role in this process and a receiver on 127.0.0.1. Ten subscriptions to the same event;
 * each phase appends BENCH_EVENTS report events (default 1,000, so 10,000 deliveries a phase):
 *
 *   sustained: appended at BENCH_RATE events/s (default 150, i.e. 1,500 deliveries/s offered):
 *              the append-to-delivery latency a receiver sees under steady load;
 *   burst:     appended as fast as the store takes them: how fast the backlog drains.
 *
 * Latency is from just before appendToStream to the receiver having the whole body; deliveries/s
 * is distinct envelope ids received over the time from the first append to the last arrival.
 */
import { Worker } from 'node:worker_threads';
import { startTestApp, type TestApp } from '../test/support/app.ts';
import { provisionTenant } from '../test/support/identity.ts';
import { appendReportEvent } from '../test/support/webhook.ts';

const SUBSCRIPTIONS = 10;
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 150);

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

async function runPhase(app: TestApp, organizationId: string, phase: string, rate: number | null) {
  const expected = arrivals.length + EVENTS * SUBSCRIPTIONS;
  const allArrived = new Promise<void>((resolve) => {
    onArrival = () => arrivals.length >= expected && resolve();
  });
  const started = Date.now();
  const appends: Promise<unknown>[] = [];
  for (let i = 0; i < EVENTS; i++) {
    if (rate) {
      const due = started + (i * 1000) / rate;
      if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
    }
    const append = appendReportEvent(app, 'ReportDecided', { organizationId, benchPhase: phase, benchAppendedAt: Date.now() });
    appends.push(append);
    // A paced phase appends one at a time; a burst keeps a few appends in flight at once.
    if (rate || appends.length % 8 === 0) await append;
  }
  await Promise.all(appends);
  const appendSeconds = (Date.now() - started) / 1000;
  await Promise.race([allArrived, new Promise((_, reject) => setTimeout(() => reject(new Error(`${phase}: deliveries missing after 120 s`)), 120_000))]);
  const mine = arrivals.filter((a) => a.phase === phase);
  const seconds = (Math.max(...mine.map((a) => a.at)) - started) / 1000;
  const latencies = mine.map((a) => a.latencyMs).sort((a, b) => a - b);
  const offered = `${rate ? `${rate} events/s offered = ${rate * SUBSCRIPTIONS} deliveries/s, ` : ''}all appended in ${appendSeconds.toFixed(2)} s`;
  console.log(
    `${phase.padEnd(9)} (${offered}): ${mine.length} deliveries in ${seconds.toFixed(2)} s = ${Math.round(mine.length / seconds)} deliveries/s; ` +
      `append->delivery p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1)} ms`,
  );
  return { deliveriesPerSecond: mine.length / seconds, p99: percentile(latencies, 99) };
}

const receiver = await startBenchReceiver();
const app = await startTestApp({ LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', DB_POOL_MAX: '20', PROJECTION_POLL_MS: '50' });
try {
  const tenant = await provisionTenant(app);
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const reply = await app.call('POST', '/v1/webhook/subscriptions', { token: tenant.token, body: { url: receiver.url, events: ['report.status.changed'] } });
    if (reply.status !== 201) throw new Error(`subscription: ${JSON.stringify(reply.body)}`);
  }
  console.log(
    `bench:webhooks: ${SUBSCRIPTIONS} named subscriptions x ${EVENTS} events per phase = ${SUBSCRIPTIONS * EVENTS} signed deliveries per phase; ` +
      `receiver on 127.0.0.1; WEBHOOK_DISPATCH_CONCURRENCY=${app.app.config.WEBHOOK_DISPATCH_CONCURRENCY}`,
  );
  const sustained = await runPhase(app, tenant.organizationId, 'sustained', RATE);
  const burst = await runPhase(app, tenant.organizationId, 'burst', null);
  const met = Math.min(sustained.deliveriesPerSecond, burst.deliveriesPerSecond) >= 1000 && sustained.p99 < 500;
  console.log(`target (>= 1000 deliveries/s, sustained p99 < 500 ms): ${met ? 'met' : 'NOT met'}`);
} finally {
  await app.stop();
  await receiver.close();
}
process.exit(0);
