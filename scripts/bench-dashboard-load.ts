/**
 * The clients of bench:dashboard, in a process of their own so that they share no event loop with
 * the service. BENCH_URL is the service, BENCH_TOKENS a JSON list of the tenants' tokens,
 * BENCH_QUERIES a JSON list of [name, query string]. BENCH_CLIENTS clients (8) send
 * GET /v1/proposals/dashboard, each request the next (tenant, query) pair in turn.
 *
 * BENCH_MODE=cold: every pair once, nothing before it (the first calls after the data was
 * written). Otherwise BENCH_ROUNDS rounds of BENCH_SLICE_MS after one call of every pair.
 * Prints one JSON line: per round (one for cold), per query, its latencies in ms.
 */
import http from 'node:http';

const url = new URL(process.env.BENCH_URL!);
const tokens = JSON.parse(process.env.BENCH_TOKENS!) as string[];
const queries = JSON.parse(process.env.BENCH_QUERIES!) as Array<[string, string]>;
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 10_000);

const pairs = tokens.flatMap((token) => queries.map(([name, query]) => ({ token, name, query })));
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

function get(path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get({ agent, host: url.hostname, port: url.port, path, headers: { authorization: `Bearer ${token}` } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** CLIENTS clients taking pairs in turn until `more()` says stop: latencies per query. */
async function run(more: (sent: number) => boolean): Promise<Record<string, number[]>> {
  const latencies: Record<string, number[]> = Object.fromEntries(queries.map(([name]) => [name, []]));
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (more(next)) {
        const { token, name, query } = pairs[next++ % pairs.length]!;
        const started = performance.now();
        const status = await get(`/v1/proposals/dashboard?${query}`, token);
        if (status !== 200) throw new Error(`${name}: GET /v1/proposals/dashboard answered ${status}`);
        latencies[name]!.push(performance.now() - started);
      }
    }),
  );
  return latencies;
}

const rounds: Array<Record<string, number[]>> = [];
if (process.env.BENCH_MODE === 'cold') {
  rounds.push(await run((sent) => sent < pairs.length));
} else {
  await run((sent) => sent < pairs.length);
  for (let round = 0; round < ROUNDS; round++) {
    const deadline = performance.now() + SLICE_MS;
    rounds.push(await run(() => performance.now() < deadline));
    process.stderr.write(`dashboard round ${round + 1}/${ROUNDS}: ${Object.values(rounds.at(-1)!).reduce((n, l) => n + l.length, 0)} requests\n`);
  }
}
agent.destroy();
process.stdout.write(`${JSON.stringify(rounds)}\n`);
