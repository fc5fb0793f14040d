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
 * Then GET /v2/report/{id} over those reports with 32 keep-alive connections (a client process
 * of its own, bench-reports-get-load.ts), ours beside a bare koa + pg route in a process of its
 * own (bench-reports-bare.ts) that answers the same report with its sections in one query, no
 * authentication, no limits. Both payloads are printed with their sizes and checked to hold the
 * same report and sections. Paired rounds in rotated order; the ratio is the median of the
 * per-round ratios with its bootstrap 95% interval (scripts/bench-method.ts).
 *
 * The rate limits are raised for the run (one credential sends everything) but stay on: every
 * request is still counted. BENCH_REPORTS and BENCH_CLIENTS override the counts.
 */
import { DEMO_CPF_POLICY } from '../application/credit-policy/demo-policies.ts';
import { startTestApp } from '../test/support/app.ts';
import { provisionTenant } from '../test/support/identity.ts';
import { runClient, startServerProcess } from './bench-client.ts';
import { benchHeader, disturbedBaseline, loadNow, ratioInterval, runBench, verdict } from './bench-method.ts';

const REPORTS = process.env.BENCH_REPORTS ?? '2000';
const CLIENTS = process.env.BENCH_CLIENTS ?? '16';
const TARGET = { perSecond: 100, p99Ms: 2000, rssMb: 300, getVsBare: 0.5 };
const GET_IDS = 200;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const ok = (pass: boolean) => (pass ? 'ok' : 'MISSED');

await runBench(async () => {
  let peakRss = process.memoryUsage().rss;
  let peakHeap = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapTotal);
  }, 50);

  console.log(benchHeader('bench:reports'));
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

    const result = await runClient<{
      reports: number;
      clients: number;
      createdSeconds: number;
      finalizedSeconds: number;
      postMs: number[];
      endToEnd: number[];
      gets: number;
    }>('./bench-reports-load.ts', { BENCH_URL: app.url, BENCH_TOKEN: tenant.token, BENCH_POLICY_ID: policy.body.id, BENCH_REPORTS: REPORTS, BENCH_CLIENTS: CLIENTS });

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

    const ids = (await app.app.db('report_reports').where({ organization_id: tenant.organizationId }).limit(GET_IDS).pluck('id')) as string[];
    const bare = await startServerProcess('./bench-reports-bare.ts', { BENCH_DATABASE_URL: app.database.url, BENCH_ORGANIZATION_ID: tenant.organizationId });
    try {
      // The same payload: one report, its sections, from both.
      const fetchJson = async (url: string, token?: string) => {
        const response = await fetch(`${url}/v2/report/${ids[0]}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
        const text = await response.text();
        return { bytes: Buffer.byteLength(text), body: JSON.parse(text) as { id?: string; sections?: unknown[] } };
      };
      const [oursPayload, barePayload] = [await fetchJson(app.url, tenant.token), await fetchJson(bare.url)];
      console.log(`GET payloads: ours ${(oursPayload.bytes / 1024).toFixed(1)} KB, ${oursPayload.body.sections?.length} sections; bare ${(barePayload.bytes / 1024).toFixed(1)} KB, ${barePayload.body.sections?.length} sections`);
      if (oursPayload.body.id !== barePayload.body.id || oursPayload.body.sections?.length !== barePayload.body.sections?.length) {
        throw new Error('the two GETs do not answer the same report and sections: the comparison would be unequal');
      }
      const gets = await runClient<Record<'ours' | 'bare', { perSecond: number; p99: number }[]>>('./bench-reports-get-load.ts', {
        BENCH_TARGETS: JSON.stringify({ ours: { url: app.url, token: tenant.token }, bare: { url: bare.url } }),
        BENCH_IDS: JSON.stringify(ids),
      });
      const rate = (name: 'ours' | 'bare') => gets[name].map((g) => g.perSecond);
      const interval = ratioInterval(rate('ours'), rate('bare'));
      const p99s = (name: 'ours' | 'bare') => gets[name].map((g) => g.p99.toFixed(1)).join(', ');
      console.log(`GET /v2/report/{id}, 32 connections, ${ids.length} reports in turn, rounds in rotated order; ${loadNow()}`);
      console.log(`  ours req/s: ${rate('ours').map(Math.round).join(', ')}; p99 ms: ${p99s('ours')}`);
      console.log(`  bare req/s: ${rate('bare').map(Math.round).join(', ')}; p99 ms: ${p99s('bare')}`);
      console.log(verdict('GET ours/bare', interval, TARGET.getVsBare, disturbedBaseline('bare', rate('bare'))));
    } finally {
      await bare.stop();
    }
  } finally {
    clearInterval(sampler);
    await app.stop();
  }
});
