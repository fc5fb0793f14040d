/**
 * The client of bench:soak, bench:scale and bench:growth, in a process of its own: a mix of
 * POST /v2/report (one request in BENCH_POST_EVERY; 0 for none) and GET /v2/report/{id} over the
 * reports known so far (BENCH_IDS, then those it creates), spread over the services in BENCH_URLS
 * (a JSON list: several `api` processes share the load in turn).
 *
 *   BENCH_MODE=closed: BENCH_CLIENTS clients, each sending its next request when the last is
 *                      answered, for BENCH_SECONDS: the capacity;
 *   BENCH_MODE=open:   BENCH_RATE requests/s on a fixed schedule whatever the answers, for
 *                      BENCH_SECONDS; latency counts from the scheduled time, so a service that
 *                      falls behind is seen (no coordinated omission).
 *
 * Prints one JSON line: requests, seconds, errors, and each request's [second it was due, ms].
 */
import { checkDigitsOf } from '../domain/shared/document.ts';

const urls = JSON.parse(process.env.BENCH_URLS!) as string[];
const token = process.env.BENCH_TOKEN!;
const policyId = process.env.BENCH_POLICY_ID;
const ids = JSON.parse(process.env.BENCH_IDS ?? '[]') as string[];
const MODE = process.env.BENCH_MODE ?? 'closed';
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const RATE = Number(process.env.BENCH_RATE ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const POST_EVERY = policyId ? Number(process.env.BENCH_POST_EVERY ?? 5) : 0;
/** Where this run's CPFs start, so that runs over one database create distinct reports. */
let nextDocument = Number(process.env.BENCH_FIRST_DOCUMENT ?? 0);
/** Past this many requests in flight the open loop counts a refusal rather than queue without end. */
const MAX_IN_FLIGHT = 512;

const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
let sent = 0;
let errors = 0;
const latencies: Array<[number, number]> = [];

/** A valid CPF outside the sandbox's test table: clean data, approved by the demo policy. */
function nextCpf(): string {
  const base = String(300_000_000 + nextDocument++ * 7919).padStart(9, '0');
  return base + checkDigitsOf('cpf', base);
}

async function one(started: number, dueAt: number): Promise<void> {
  const url = urls[sent % urls.length]!;
  const post = ids.length === 0 || (POST_EVERY > 0 && sent % POST_EVERY === 0);
  sent++;
  try {
    const response = post
      ? await fetch(`${url}/v2/report`, { method: 'POST', headers, body: JSON.stringify({ document: nextCpf(), type: 'cpf', policyId }) })
      : await fetch(`${url}/v2/report/${ids[sent % ids.length]}`, { headers });
    const body = (await response.json()) as { id?: string };
    if (response.status !== 200) errors++;
    else if (post && body.id) ids.push(body.id);
  } catch {
    errors++;
  }
  latencies.push([(dueAt - started) / 1000, performance.now() - dueAt]);
}

const started = performance.now();
const deadline = started + SECONDS * 1000;
if (MODE === 'closed') {
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < deadline) await one(started, performance.now());
    }),
  );
} else {
  const inFlight = new Set<Promise<void>>();
  for (let i = 0; ; i++) {
    const dueAt = started + (i * 1000) / RATE;
    if (dueAt >= deadline) break;
    const wait = dueAt - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (inFlight.size >= MAX_IN_FLIGHT) {
      errors++;
      continue;
    }
    const request = one(started, dueAt).finally(() => inFlight.delete(request));
    inFlight.add(request);
  }
  await Promise.all(inFlight);
}
process.stdout.write(`${JSON.stringify({ requests: latencies.length, seconds: (performance.now() - started) / 1000, errors, ids: ids.slice(0, 200), latencies })}\n`);
