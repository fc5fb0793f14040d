/**
 * The client side of bench:pricing's HTTP phase, in a process of its own so that it shares no
 * event loop with the servers it measures. BENCH_TARGETS is a JSON object `{name: {url, token?}}`;
 * for BENCH_ROUNDS rounds, in rotated order, each target gets BENCH_CLIENTS keep-alive clients
 * POSTing /v1/pricing/simulate (bodies from bench-pricing-inputs.ts, every one different) for
 * BENCH_SLICE_MS. Every reply must be a 200 with the schedule's rows. Prints one JSON line: per
 * target, each round's replies/s and p99 in ms.
 */
import { Agent, request } from 'node:http';
import { pairedRounds } from './bench-method.ts';
import { simulationBody, TERMS } from './bench-pricing-inputs.ts';

const targets = JSON.parse(process.env.BENCH_TARGETS!) as Record<string, { url: string; token?: string }>;
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

function post(url: URL, agent: Agent, token: string | undefined, payload: string): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
    if (token) headers.authorization = `Bearer ${token}`;
    const req = request(url, { method: 'POST', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve([res.statusCode ?? 0, Buffer.concat(chunks).toString()]));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

let sequence = 0;
async function slice(name: string, ms: number): Promise<{ perSecond: number; p99: number }> {
  const { url, token } = targets[name]!;
  const target = new URL('/v1/pricing/simulate', url);
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + ms;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < deadline) {
        const body = simulationBody(sequence++);
        const sent = performance.now();
        const [status, text] = await post(target, agent, token, JSON.stringify(body));
        latencies.push(performance.now() - sent);
        if (status !== 200) throw new Error(`${name}: ${status} ${text.slice(0, 300)}`);
        // The rows are the work: a reply without them would not be the same computation.
        if ((JSON.parse(text) as { installments: unknown[] }).installments.length !== body.termMonths) throw new Error(`${name}: not ${body.termMonths} rows`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / seconds, p99: percentile(latencies, 99) };
}

const names = Object.keys(targets);
// Warm-up: connections opened, code paths compiled.
for (const name of names) await slice(name, Math.min(1000, SLICE_MS));
const results = await pairedRounds(
  Object.fromEntries(
    names.map((name) => [
      name,
      async (round: number) => {
        const result = await slice(name, SLICE_MS);
        process.stderr.write(`POST round ${round + 1}/${ROUNDS} ${name}: ${Math.round(result.perSecond)} req/s, p99 ${result.p99.toFixed(1)} ms (terms ${TERMS.join('/')})\n`);
        return result;
      },
    ]),
  ),
  ROUNDS,
);
process.stdout.write(`${JSON.stringify(results)}\n`);
