/**
 * `npm run bench:soak [-- [--quick] --minutes 30 --capacity-seconds 30]`: the service as `npm start` runs it,
 * held at half of its measured capacity for --minutes, to see what only time shows: memory that
 * is never given back, latency that creeps.
 *
 * The load is reports: one POST /v2/report in five (the demo CPF policy, sandbox sources: a report
 * is created, processed, finalized and projected), the rest GET /v2/report/{id} over the reports
 * created so far, from a client process of its own (scripts/bench-http-load.ts). Capacity is
 * what 16 closed-loop clients get through in --capacity-seconds; the soak then offers half of it
 * open-loop (on a fixed schedule, latency from the scheduled time).
 *
 * Targets (issue 38): the service's RSS (VmRSS, every 10 s) grows by less than 1 MB/min (least
 * squares over the run after its first sixth, the warm-up; met when the 95% interval's upper
 * bound is under it); the p99 of every later sixth of the run within 1.2x of the first's (the
 * first sixth's p99 over each later one's, >= 0.83x on the interval's lower bound). Thirty
 * minutes make sixths of five minutes, the "first five minutes".
 */
import { DEMO_CPF_POLICY } from '../application/credit-policy/demo-policies.ts';
import { runClient } from './bench-client.ts';
import { benchHeader, loadNow, ratioInterval, runBench, verdict } from './bench-method.ts';
import { benchDatabase, benchFlags, phase, provisionOverCli, startServiceProcess } from './bench-service.ts';

const flags = benchFlags({
  minutes: { full: '30', quick: '2' },
  'capacity-seconds': { full: '30', quick: '10' },
});
const MINUTES = Number(flags.minutes);
const CAPACITY_SECONDS = Number(flags['capacity-seconds']);
const WINDOWS = 6;
const TARGET = { slopeMbPerMin: 1, p99Growth: 1.2 };
const SAMPLE_MS = 10_000;

interface Load {
  requests: number;
  seconds: number;
  errors: number;
  ids: string[];
  latencies: Array<[number, number]>;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** Least-squares slope of y over x and its standard error. */
function slope(points: ReadonlyArray<[number, number]>): { slope: number; error: number } {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  const b = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0) / sxx;
  const residuals = points.reduce((s, [x, y]) => s + (y - my - b * (x - mx)) ** 2, 0);
  return { slope: b, error: n > 2 ? Math.sqrt(residuals / (n - 2) / sxx) : Infinity };
}

await runBench(async () => {
  console.log(benchHeader('bench:soak'));
  const { database, store, cpu } = await benchDatabase();
  const service = await startServiceProcess(database, { RATE_LIMIT_PER_CREDENTIAL: '10000000', RATE_LIMIT_PER_ORGANIZATION: '10000000' });
  try {
    const serviceCpu = await cpu(service.pid);
    const tenant = await provisionOverCli(service, database, 'Bench');
    const policy = await fetch(`${service.url}/credit-policy/policy`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(DEMO_CPF_POLICY),
    });
    const policyBody = (await policy.json()) as { id: string };
    if (policy.status !== 200) throw new Error(`policy: ${JSON.stringify(policyBody)}`);
    const env = { BENCH_URLS: JSON.stringify([service.url]), BENCH_TOKEN: tenant.token, BENCH_POLICY_ID: policyBody.id };

    const capacity = await phase('capacity (service process and PostgreSQL)', serviceCpu, () =>
      runClient<Load>('./bench-http-load.ts', { ...env, BENCH_MODE: 'closed', BENCH_CLIENTS: '16', BENCH_SECONDS: String(CAPACITY_SECONDS) }),
    );
    const capacityRate = capacity.requests / capacity.seconds;
    const rate = Math.max(1, Math.round(capacityRate / 2));
    console.log(`capacity: ${capacityRate.toFixed(1)} req/s (16 closed-loop clients, ${CAPACITY_SECONDS} s, ${capacity.errors} errors); soak at ${rate} req/s for ${MINUTES} min; ${loadNow()}`);

    const rss: Array<[number, number]> = [];
    const soakStarted = performance.now();
    const sampler = setInterval(() => rss.push([(performance.now() - soakStarted) / 60_000, service.rssMb()]), Math.min(SAMPLE_MS, (MINUTES * 60_000) / 30));
    const soak = await phase('soak (service process and PostgreSQL)', serviceCpu, () =>
      runClient<Load>('./bench-http-load.ts', {
        ...env,
        BENCH_MODE: 'open',
        BENCH_RATE: String(rate),
        BENCH_SECONDS: String(MINUTES * 60),
        BENCH_IDS: JSON.stringify(capacity.ids),
        BENCH_FIRST_DOCUMENT: String(capacity.requests),
      }),
    ).finally(() => clearInterval(sampler));

    const windowSeconds = (MINUTES * 60) / WINDOWS;
    const windows = Array.from({ length: WINDOWS }, (_, w) =>
      soak.latencies
        .filter(([at]) => at >= w * windowSeconds && at < (w + 1) * windowSeconds)
        .map(([, ms]) => ms)
        .sort((a, b) => a - b),
    );
    const p99s = windows.map((w) => percentile(w, 99));
    console.log(`soak: ${soak.requests} requests in ${(soak.seconds / 60).toFixed(1)} min (${(soak.requests / soak.seconds).toFixed(1)} req/s offered ${rate}), ${soak.errors} errors; ${loadNow()}`);
    console.log(`  p99 per sixth (${(windowSeconds / 60).toFixed(1)} min each): ${p99s.map((p) => p.toFixed(0)).join(', ')} ms; p50 ${windows.map((w) => percentile(w, 50).toFixed(0)).join(', ')} ms`);
    console.log(`  RSS: ${rss[0]?.[1].toFixed(0)} MB at the start, ${rss.at(-1)?.[1].toFixed(0)} MB at the end, peak ${Math.max(...rss.map(([, mb]) => mb)).toFixed(0)} MB (${rss.length} samples)`);

    const settled = rss.filter(([minute]) => minute >= MINUTES / WINDOWS);
    const { slope: mbPerMin, error } = slope(settled);
    const high = mbPerMin + 1.96 * error;
    console.log(
      `RSS slope after the first sixth: ${mbPerMin.toFixed(2)} MB/min [95% ${(mbPerMin - 1.96 * error).toFixed(2)}, ${high.toFixed(2)}] over ${settled.length} samples   [target < ${TARGET.slopeMbPerMin} MB/min: ${high < TARGET.slopeMbPerMin ? 'met' : 'MISSED'}]`,
    );
    // The first sixth's p99 over each later sixth's: "higher is better", so the target is 1/1.2.
    const disturbed = soak.errors > soak.requests / 100 ? `${soak.errors} errors: the offered rate was not served` : null;
    console.log(
      verdict(
        'first-sixth p99 / later-sixth p99 (within 1.2x)',
        ratioInterval(
          p99s.slice(1).map(() => p99s[0]!),
          p99s.slice(1),
        ),
        Number((1 / TARGET.p99Growth).toFixed(2)),
        disturbed,
      ),
    );
  } finally {
    await service.stop();
    await store.close();
    await database.drop();
  }
});
