/**
 * The client side of the GET phase of `npm run bench:reports`, in a process of its own so that it
 * does not share an event loop with the servers it measures. BENCH_TARGETS is a JSON object
 * `{name: {url, token?}}`, BENCH_IDS a JSON list of report ids. For ROUNDS rounds, each target
 * in turn gets CONNECTIONS keep-alive connections sending GET /v2/report/{id} (ids in turn) for
 * SLICE_MS, the order rotating from round to round. Prints one JSON line: per target, each slice's requests/s and p99 in ms.
 */
import http from 'node:http';
import { pairedRounds } from './bench-method.ts';

const targets = JSON.parse(process.env.BENCH_TARGETS!) as Record<string, { url: string; token?: string }>;
const ids = JSON.parse(process.env.BENCH_IDS!) as string[];
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 4000);
// Six: each contender first in three rounds (rotation, scripts/bench-method.ts), and >= 5 pairs.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

function get(agent: http.Agent, url: URL, path: string, token: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get({ agent, host: url.hostname, port: url.port, path, headers: token ? { authorization: `Bearer ${token}` } : {} }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

async function slice(name: string, ms: number): Promise<{ perSecond: number; p99: number }> {
  const { url, token } = targets[name]!;
  const base = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const deadline = started + ms;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < deadline) {
        const id = ids[next++ % ids.length]!;
        const sent = performance.now();
        const status = await get(agent, base, `/v2/report/${id}`, token);
        if (status !== 200) throw new Error(`${name}: GET /v2/report/${id} answered ${status}`);
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / seconds, p99: percentile(latencies, 99) };
}

const names = Object.keys(targets);
// Warm-up: connections opened, code paths compiled, caches filled.
for (const name of names) await slice(name, Math.min(1000, SLICE_MS));
const results = await pairedRounds(
  Object.fromEntries(
    names.map((name) => [
      name,
      async (round: number) => {
        const result = await slice(name, SLICE_MS);
        process.stderr.write(`GET round ${round + 1}/${ROUNDS} ${name}: ${Math.round(result.perSecond)} req/s, p99 ${result.p99.toFixed(1)} ms\n`);
        return result;
      },
    ]),
  ),
  ROUNDS,
);
process.stdout.write(`${JSON.stringify(results)}\n`);
