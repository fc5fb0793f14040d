/**
 * `npm run bench:reports`: reports end to end through HTTP on the sandbox sources.
 *
 * Starts the whole service (every role, one process) on a throw-away embedded PostgreSQL,
 * provisions a tenant with the demo CPF policy, then a separate client process
 * (bench-reports-load.ts) has 16 clients POST /v2/report for 2,000 distinct valid CPFs while it
 * polls GET /v2/report/{id}?details=false until isFinalized. Prints reports created and finalized
 * per second, p50/p99 from sending the POST to the report's finalizedAt, and the peak RSS of the
 * service process (sampled every 50 ms; the clients' memory is not in it).
 *
 * The rate limits are lifted for the run (one credential sends everything). BENCH_REPORTS and
 * BENCH_CLIENTS override the counts.
 */
import { spawn } from 'node:child_process';
import { DEMO_CPF_POLICY } from '../application/credit-policy/demo-policies.ts';
import { startTestApp } from '../test/support/app.ts';
import { provisionTenant } from '../test/support/identity.ts';

const REPORTS = process.env.BENCH_REPORTS ?? '2000';
const CLIENTS = process.env.BENCH_CLIENTS ?? '16';
const TARGET = { perSecond: 100, p99Ms: 2000, rssMb: 300 };

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const ok = (pass: boolean) => (pass ? 'ok' : 'MISSED');

let peakRss = process.memoryUsage().rss;
let peakHeap = 0;
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapTotal);
}, 50);

const app = await startTestApp({
  LOG_LEVEL: 'fatal',
  DB_POOL_MAX: '20',
  // The per-credential rate limit (600/min by default) would cap one tenant far below the target.
  RATE_LIMIT_PER_CREDENTIAL: '10000000',
  RATE_LIMIT_PER_ORGANIZATION: '10000000',
});
try {
  const tenant = await provisionTenant(app, { name: 'Bench' });
  const policy = await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: DEMO_CPF_POLICY });
  if (policy.status !== 200) throw new Error(`policy: ${JSON.stringify(policy.body)}`);
  const idleRss = process.memoryUsage().rss;
  peakRss = idleRss;

  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./bench-reports-load.ts', import.meta.url).pathname], {
    env: { ...process.env, BENCH_URL: app.url, BENCH_TOKEN: tenant.token, BENCH_POLICY_ID: policy.body.id, BENCH_REPORTS: REPORTS, BENCH_CLIENTS: CLIENTS },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code: number = await new Promise((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  if (code !== 0) throw new Error(`the load process failed (exit ${code})`);
  const result = JSON.parse(output.trim().split('\n').at(-1)!) as {
    reports: number;
    clients: number;
    createdSeconds: number;
    finalizedSeconds: number;
    postMs: number[];
    endToEnd: number[];
    gets: number;
  };

  const e2e = [...result.endToEnd].sort((a, b) => a - b);
  const posts = [...result.postMs].sort((a, b) => a - b);
  const createdRate = result.reports / result.createdSeconds;
  const finalizedRate = result.endToEnd.length / result.finalizedSeconds;
  const p99 = percentile(e2e, 99);
  console.log(`reports:    ${result.reports} created, ${e2e.length} finalized (${result.clients} clients, sandbox sources, demo CPF policy, ${result.gets} polls)`);
  console.log(`created:    ${createdRate.toFixed(1)} reports/s (${result.createdSeconds.toFixed(2)} s)   [target >= ${TARGET.perSecond}: ${ok(createdRate >= TARGET.perSecond)}]`);
  console.log(
    `finalized:  ${finalizedRate.toFixed(1)} reports/s (${result.finalizedSeconds.toFixed(2)} s from the first POST to the last finalizedAt)   [target >= ${TARGET.perSecond}: ${ok(finalizedRate >= TARGET.perSecond)}]`,
  );
  console.log(`POST -> isFinalized: p50 ${percentile(e2e, 50)} ms, p99 ${p99} ms, max ${e2e.at(-1)} ms   [target p99 < ${TARGET.p99Ms} ms: ${ok(p99 < TARGET.p99Ms)}]`);
  console.log(`POST /v2/report reply: p50 ${percentile(posts, 50)} ms, p99 ${percentile(posts, 99)} ms`);
  console.log(`service memory: peak RSS ${mb(peakRss)} MB (${mb(idleRss)} MB idle before the load; V8 heap peak ${mb(peakHeap)} MB)   [target < ${TARGET.rssMb} MB: ${ok(mb(peakRss) < TARGET.rssMb)}]`);
} finally {
  clearInterval(sampler);
  await app.stop();
}
process.exit(0);
