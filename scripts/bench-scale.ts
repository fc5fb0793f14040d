/**
 * `npm run bench:scale [-- [--quick] --rounds 6 --seconds 20 --clients 16]`: what a second service process
 * gives on one PostgreSQL. Two processes as `npm start` runs them, on one database and one data
 * folder: the first with every role, the second with `ROLES=api` (docs/running.md, Scaling out).
 * In each round the same closed-loop load (scripts/bench-http-load.ts: --clients clients, one
 * POST /v2/report in five, the rest GET /v2/report/{id}) goes to the first process alone ("one")
 * or in turn to both ("two"); rounds paired and rotated. Prints requests/s of each and the ratio
 * two/one with its interval: no target, the ratio is the finding. On a machine with two cores the
 * processes, PostgreSQL and the clients share them, so the ratio there says how much of one
 * process's time was its own event loop rather than the cores (docs/benchmarks.md says what more
 * cores would give).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_CPF_POLICY } from '../application/credit-policy/demo-policies.ts';
import { runClient } from './bench-client.ts';
import { benchHeader, disturbedBaseline, loadNow, pairedRounds, ratioInterval, runBench } from './bench-method.ts';
import { benchDatabase, benchFlags, provisionOverCli, type ServiceProcess, startServiceProcess } from './bench-service.ts';

const flags = benchFlags({
  rounds: { full: '6', quick: '5' },
  seconds: { full: '20', quick: '3' },
  clients: { full: '16', quick: '4' },
});
const ROUNDS = Number(flags.rounds);
const SECONDS = flags.seconds!;
const CLIENTS = flags.clients!;
const LIMITS = { RATE_LIMIT_PER_CREDENTIAL: '10000000', RATE_LIMIT_PER_ORGANIZATION: '10000000' };

await runBench(async () => {
  console.log(benchHeader('bench:scale'));
  const { database, store, cpu } = await benchDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'credit-bench-scale-'));
  const started: ServiceProcess[] = [];
  try {
    const first = await startServiceProcess(database, LIMITS, { dataDir });
    started.push(first);
    const second = await startServiceProcess(database, { ...LIMITS, ROLES: 'api' }, { dataDir });
    started.push(second);
    const tenant = await provisionOverCli(first, database, 'Bench');
    const policy = await fetch(`${first.url}/credit-policy/policy`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(DEMO_CPF_POLICY),
    });
    const policyId = ((await policy.json()) as { id: string }).id;
    const cpus = { first: await cpu(first.pid), second: await cpu(second.pid) };
    let documents = 0;
    const load = async (urls: string[]) => {
      const result = await runClient<{ requests: number; seconds: number; errors: number }>('./bench-http-load.ts', {
        BENCH_URLS: JSON.stringify(urls),
        BENCH_TOKEN: tenant.token,
        BENCH_POLICY_ID: policyId,
        BENCH_MODE: 'closed',
        BENCH_CLIENTS: CLIENTS,
        BENCH_SECONDS: SECONDS,
        BENCH_FIRST_DOCUMENT: String(documents),
      });
      documents += result.requests;
      if (result.errors) throw new Error(`${result.errors} requests failed`);
      return result.requests / result.seconds;
    };
    await load([first.url]); // warm-up: connections, compiled paths, a first set of reports
    const measure = async (label: string, urls: string[]) => {
      const start = { first: cpus.first?.now(), second: cpus.second?.now() };
      const rate = await load(urls);
      if (start.first) console.log(`  ${label}, first process: ${cpus.first!.since(start.first)}`);
      if (start.second) console.log(`  ${label}, second process: ${cpus.second!.since(start.second)}`);
      return rate;
    };
    const rates = await pairedRounds(
      {
        one: (round) => measure(`round ${round + 1} one`, [first.url]),
        two: (round) => measure(`round ${round + 1} two`, [first.url, second.url]),
      },
      ROUNDS,
    );
    const interval = ratioInterval(rates.two, rates.one);
    const disturbed = disturbedBaseline('one', rates.one);
    console.log(`${CLIENTS} closed-loop clients, ${SECONDS} s a round, rounds rotated; ${loadNow()}`);
    console.log(`  one process req/s: ${rates.one.map(Math.round).join(', ')}`);
    console.log(`  two processes req/s: ${rates.two.map(Math.round).join(', ')}`);
    console.log(
      `two/one: ${interval.median.toFixed(2)}x [95% ${interval.low.toFixed(2)}, ${interval.high.toFixed(2)}] over ${interval.perRound.length} rounds   [no target: the finding${disturbed ? `; disturbed (${disturbed})` : ''}]`,
    );
  } finally {
    for (const service of started.reverse()) await service.stop();
    await store.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
