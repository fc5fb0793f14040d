/**
 * `npm run bench:reports` (`-- --quick` to prove it runs): reports end to end through HTTP on the
 * sandbox sources.
 *
 * Starts the service as `npm start` runs it, in a process of its own (bench-service.ts: every
 * role, its V8 flags, the shipped poll intervals), over a throw-away embedded PostgreSQL (stopped
 * and removed at the end, also on failure or a signal), provisions a tenant with
 * `npm run provision` and posts the demo CPF policy; then a client process of its own
 * (bench-reports-load.ts) has 16 clients POST /v2/report for 2,000 distinct valid CPFs while it
 * polls GET /v2/report/{id}?details=false until isFinalized. Prints reports created and finalized
 * per second, p50/p99 from sending the POST to the report's finalizedAt, and the peak RSS of the
 * service process (VmHWM from /proc, reset once the tenant is provisioned; the clients' memory is
 * not in it), with the CPU the service and PostgreSQL used.
 *
 * Then GET /v2/report/{id} over those reports with 32 keep-alive connections (a client process
 * of its own, bench-reports-get-load.ts), ours beside a bare koa + pg route in a process of its
 * own (bench-reports-bare.ts) that answers the same report with its sections in one query, no
 * authentication, no limits. Both payloads are printed with their sizes and checked to hold the
 * same report and sections. Paired rounds in rotated order; the ratio is the median of the
 * per-round ratios with its bootstrap 95% interval (scripts/bench-method.ts).
 *
 * The rate limits are raised for the run (one credential sends everything) but stay on: every
 * request is still counted. BENCH_REPORTS, BENCH_CLIENTS, BENCH_ROUNDS and BENCH_SLICE_MS override
 * the counts (quick: 200 reports, 8 clients, five GET rounds of 1 s).
 */
import { DEMO_CPF_POLICY } from '../application/credit-policy/demo-policies.ts';
import { runClient, startServerProcess } from './bench-client.ts';
import { benchHeader, disturbedBaseline, loadNow, runBench, ratioInterval, verdict } from './bench-method.ts';
import { benchDatabase, phase, provisionOverCli, setting, startServiceProcess } from './bench-service.ts';

const REPORTS = String(setting('REPORTS', 2000, 200));
const CLIENTS = String(setting('CLIENTS', 16, 8));
/** Six rounds (each contender first in three) of GET slices of 4 s; quick: five of 1 s. */
const GET_ROUNDS = String(setting('ROUNDS', 6, 5));
const GET_SLICE_MS = String(setting('SLICE_MS', 4000, 1000));
const TARGET = { perSecond: 100, p99Ms: 2000, rssMb: 300, getVsBare: 0.5 };
const GET_IDS = 200;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const ok = (pass: boolean) => (pass ? 'ok' : 'MISSED');

await runBench(async () => {
  console.log(benchHeader('bench:reports'));
  const { database, store, cpu } = await benchDatabase();
  // The per-credential rate limit (600/min by default) would cap one tenant far below the target;
  // raised, the limits stay on: every request is still counted.
  const service = await startServiceProcess(database, { DB_POOL_MAX: '20', RATE_LIMIT_PER_CREDENTIAL: '10000000', RATE_LIMIT_PER_ORGANIZATION: '10000000' });
  try {
    const serviceCpu = await cpu(service.pid);
    const tenant = await provisionOverCli(service, database, 'Bench');
    const reply = await fetch(`${service.url}/credit-policy/policy`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(DEMO_CPF_POLICY),
    });
    const policy = (await reply.json()) as { id: string };
    if (reply.status !== 200) throw new Error(`policy: ${reply.status} ${JSON.stringify(policy)}`);
    // The peak from here on: VmHWM of the service process, exact (not sampled), the clients not in it.
    const idleRss = service.rssMb();
    service.resetPeak();

    const result = await phase('create and finalize (service process and PostgreSQL)', serviceCpu, () =>
      runClient<{
        reports: number;
        clients: number;
        createdSeconds: number;
        finalizedSeconds: number;
        postMs: number[];
        endToEnd: number[];
        gets: number;
      }>('./bench-reports-load.ts', { BENCH_URL: service.url, BENCH_TOKEN: tenant.token, BENCH_POLICY_ID: policy.id, BENCH_REPORTS: REPORTS, BENCH_CLIENTS: CLIENTS }),
    );
    const peakRss = service.peakRssMb();

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
    console.log(
      `service memory (npm start's process): peak RSS ${Math.round(peakRss)} MB (${Math.round(idleRss)} MB idle before the load)   [target < ${TARGET.rssMb} MB: ${ok(peakRss < TARGET.rssMb)}]`,
    );

    const ids = (await database.knex('report_reports').where({ organization_id: tenant.organizationId }).limit(GET_IDS).pluck('id')) as string[];
    const bare = await startServerProcess('./bench-reports-bare.ts', { BENCH_DATABASE_URL: database.url, BENCH_ORGANIZATION_ID: tenant.organizationId });
    try {
      // The same payload: one report, its sections, from both.
      const fetchJson = async (url: string, token?: string) => {
        const response = await fetch(`${url}/v2/report/${ids[0]}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
        const text = await response.text();
        return { bytes: Buffer.byteLength(text), body: JSON.parse(text) as { id?: string; sections?: unknown[] } };
      };
      const [oursPayload, barePayload] = [await fetchJson(service.url, tenant.token), await fetchJson(bare.url)];
      console.log(
        `GET payloads: ours ${(oursPayload.bytes / 1024).toFixed(1)} KB, ${oursPayload.body.sections?.length} sections; bare ${(barePayload.bytes / 1024).toFixed(1)} KB, ${barePayload.body.sections?.length} sections`,
      );
      if (oursPayload.body.id !== barePayload.body.id || oursPayload.body.sections?.length !== barePayload.body.sections?.length) {
        throw new Error('the two GETs do not answer the same report and sections: the comparison would be unequal');
      }
      const gets = await phase('GET, both servers (service process and PostgreSQL)', serviceCpu, () =>
        runClient<Record<'ours' | 'bare', { perSecond: number; p99: number }[]>>('./bench-reports-get-load.ts', {
          BENCH_TARGETS: JSON.stringify({ ours: { url: service.url, token: tenant.token }, bare: { url: bare.url } }),
          BENCH_IDS: JSON.stringify(ids),
          BENCH_ROUNDS: GET_ROUNDS,
          BENCH_SLICE_MS: GET_SLICE_MS,
        }),
      );
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
    await service.stop();
    await store.close();
    await database.drop();
  }
});
