/**
 * `npm run bench:pricing` (`-- --quick` to prove it runs): installment simulations, by the method
 * of scripts/bench-method.ts (rounds, the median with its bootstrap 95% interval, a target met
 * when the interval's lower bound clears it, no verdict when the figure itself is disturbed).
 *
 * 1. In-process: `simulate()` (domain/pricing) back to back after 3,000 calls of warm-up, 360
 *    months, each result's 360 rows read (they are built on first read: the verdict counts
 *    building them), amount, rate, dates, model and entity type moving every call
 *    (bench-pricing-inputs.ts). ROUNDS rounds of ROUND_MS; target >= 20,000/s, judged as the
 *    ratio of each round's rate to it. Also printed: the rate without reading the rows, and the
 *    CPU µs per simulation.
 * 2. Over HTTP: POST /v1/pricing/simulate on the whole service run as `npm start` runs it, in a
 *    process of its own (bench-service.ts: its node flags, the shipped poll intervals; authentication, gate,
 *    validation, rate limits raised but counted, JSON of the rows) beside a bare koa route in a
 *    process of its own that parses the same body and runs the same `simulate()`
 *    (bench-pricing-bare.ts); 16 keep-alive clients in a process of their own
 *    (bench-pricing-load.ts), terms of 360, 300, 240 and 180 months. Target >= 0.5x bare.
 *
 * The cluster is stopped and its folder removed at the end, also on failure or a signal. The
 * bench itself re-runs under `npm start`'s node flags (asNpmStart) for the in-process part.
 */
import { brazilHolidays } from '../application/pricing/holidays.ts';
import { IOF_RATES } from '../domain/pricing/iof.ts';
import { simulate } from '../domain/pricing/simulate.ts';
import { runClient, startServerProcess } from './bench-client.ts';
import { benchHeader, disturbedBaseline, loadNow, ratioInterval, runBench, verdict } from './bench-method.ts';
import { inputOf, simulationBody } from './bench-pricing-inputs.ts';
import { asNpmStart, benchDatabase, phase, provisionOverCli, setting, startServiceProcess } from './bench-service.ts';

await asNpmStart();

/** Six: the HTTP phase's two contenders each first in three rounds. */
const ROUNDS = setting('ROUNDS', 6, 5);
const ROUND_MS = setting('ROUND_MS', 2000, 400);
const SLICE_MS = setting('SLICE_MS', 4000, 800);
const TARGET = { inProcess: 20_000, httpVsBare: 0.5 };

/**
 * One round of back-to-back simulations of 360 months: per wall-clock second, and µs of this
 * process's CPU per simulation (what the code costs, whatever else competes for the cores).
 */
function inProcessRound(rows: boolean, start: number): { perSecond: number; cpuMicros: number; calls: number } {
  let i = start;
  const deadline = performance.now() + ROUND_MS;
  const started = performance.now();
  const cpu = process.cpuUsage();
  while (performance.now() < deadline) {
    for (let k = 0; k < 50; k++, i++) {
      const result = simulate(inputOf(simulationBody(i, 360)), brazilHolidays, IOF_RATES);
      if (rows && result.installments.length !== 360) throw new Error('360 rows expected');
    }
  }
  const used = process.cpuUsage(cpu);
  const calls = i - start;
  return { perSecond: calls / ((performance.now() - started) / 1000), cpuMicros: (used.user + used.system) / calls, calls };
}

await runBench(async () => {
  console.log(benchHeader('bench:pricing'));

  let next = 0;
  for (; next < 3000; next++) {
    if (simulate(inputOf(simulationBody(next, 360)), brazilHolidays, IOF_RATES).installments.length !== 360) throw new Error('360 rows expected');
  }
  const withRows: number[] = [];
  const without: number[] = [];
  const micros: number[] = [];
  for (let round = 0; round < Math.max(ROUNDS, 5); round++) {
    // Both kinds in each round, their order alternating, so that a disturbed moment weighs on both.
    const kinds = round % 2 ? [false, true] : [true, false];
    for (const rows of kinds) {
      const result = inProcessRound(rows, next);
      next += result.calls;
      if (rows) {
        withRows.push(result.perSecond);
        micros.push(result.cpuMicros);
      } else {
        without.push(result.perSecond);
      }
    }
  }
  const round = (values: number[]) => values.map((v) => Math.round(v)).join(', ');
  console.log(`in-process simulate(), 360 months, rows built and read: ${round(withRows)} /s per round; CPU per simulation ${micros.map((m) => m.toFixed(1)).join(', ')} µs; ${loadNow()}`);
  console.log(`  same without reading the rows (printed, not judged): ${round(without)} /s`);
  const inProcess = ratioInterval(
    withRows,
    withRows.map(() => TARGET.inProcess),
  );
  console.log(verdict(`in-process rate / ${TARGET.inProcess}/s`, inProcess, 1, disturbedBaseline('simulate() itself', withRows)));

  const { database, store, cpu } = await benchDatabase();
  const service = await startServiceProcess(database, { RATE_LIMIT_PER_CREDENTIAL: '100000000', RATE_LIMIT_PER_ORGANIZATION: '100000000' });
  const bare = await startServerProcess('./bench-pricing-bare.ts', {});
  try {
    const tenant = await provisionOverCli(service, database, 'Bench lender');
    const results = await phase('POST /v1/pricing/simulate (service process and PostgreSQL; the bare and client processes not counted)', await cpu(service.pid), () =>
      runClient<Record<'ours' | 'bare', Array<{ perSecond: number; p99: number }>>>('./bench-pricing-load.ts', {
        BENCH_TARGETS: JSON.stringify({ ours: { url: service.url, token: tenant.token }, bare: { url: bare.url } }),
        BENCH_ROUNDS: String(ROUNDS),
        BENCH_SLICE_MS: String(SLICE_MS),
      }),
    );
    const rate = (name: 'ours' | 'bare') => results[name].map((r) => r.perSecond);
    const p99s = (name: 'ours' | 'bare') => results[name].map((r) => r.p99.toFixed(1)).join(', ');
    console.log(`POST /v1/pricing/simulate, 16 clients in their own process, terms 360/300/240/180, rounds in rotated order:`);
    console.log(`  ours req/s: ${round(rate('ours'))}; p99 ms: ${p99s('ours')}`);
    console.log(`  bare req/s: ${round(rate('bare'))}; p99 ms: ${p99s('bare')}`);
    console.log(verdict('POST ours/bare', ratioInterval(rate('ours'), rate('bare')), TARGET.httpVsBare, disturbedBaseline('bare', rate('bare'))));
  } finally {
    await bare.stop();
    await service.stop();
    await store.close();
    await database.drop();
  }
});
