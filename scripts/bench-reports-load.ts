/**
 * The client side of `npm run bench:reports`, in its own process so the service's memory is
 * measured alone. Reads BENCH_URL, BENCH_TOKEN, BENCH_POLICY_ID, BENCH_REPORTS, BENCH_CLIENTS;
 * prints one JSON line with the measurements.
 */
import { checkDigitsOf } from '../domain/shared/document.ts';

const url = process.env.BENCH_URL!;
const token = process.env.BENCH_TOKEN!;
const policyId = process.env.BENCH_POLICY_ID!;
const REPORTS = Number(process.env.BENCH_REPORTS ?? 2000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const POLLERS = 4;
const FIRST_POLL_MS = 250;
const POLL_EVERY_MS = 500;

/** Distinct valid CPFs outside the sandbox's test table: clean data, approved by the demo policy. */
function documents(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const base = String(200_000_000 + i * 7919).padStart(9, '0');
    return base + checkDigitsOf('cpf', base);
  });
}

const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

async function request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: response.status, body: await response.json() };
    } catch (error) {
      // A keep-alive socket the server closed just as it was reused: GETs are safe to repeat.
      if (method !== 'GET' || attempt >= 3) throw error;
    }
  }
}

const docs = documents(REPORTS);
const sentAt = new Map<string, number>();
const postMs: number[] = [];
const endToEnd: number[] = [];
const due: Array<{ id: string; at: number }> = [];
let lastFinalizedAt = 0;
let next = 0;
let posting = true;
let gets = 0;
const started = Date.now();

const clients = Array.from({ length: CLIENTS }, async () => {
  while (next < REPORTS) {
    const document = docs[next++]!;
    const t0 = Date.now();
    const reply = await request('POST', '/v2/report', { document, type: 'cpf', policyId });
    if (reply.status !== 200) throw new Error(`POST /v2/report ${reply.status}: ${JSON.stringify(reply.body)}`);
    postMs.push(Date.now() - t0);
    sentAt.set(reply.body.id, t0);
    due.push({ id: reply.body.id, at: Date.now() + FIRST_POLL_MS });
    if (sentAt.size % 200 === 0) process.stderr.write(`created ${sentAt.size}/${REPORTS}\n`);
  }
});
const createdIn = Promise.all(clients).then(() => {
  posting = false;
  return (Date.now() - started) / 1000;
});

// Each report is polled after FIRST_POLL_MS, then every POLL_EVERY_MS, until isFinalized: the
// latency measured is the server's finalizedAt minus the POST's send time, so polling does not
// have to be tight, and it must not steal the service's CPU from the work it measures.
const pollers = Array.from({ length: POLLERS }, async () => {
  while (posting || due.length) {
    const i = due.findIndex((d) => d.at <= Date.now());
    if (i === -1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      continue;
    }
    const [entry] = due.splice(i, 1);
    const reply = await request('GET', `/v2/report/${entry!.id}?details=false`);
    gets++;
    if (reply.status === 200 && reply.body.reportProgress.isFinalized) {
      const finalizedAt = Date.parse(reply.body.reportProgress.finalizedAt);
      endToEnd.push(finalizedAt - sentAt.get(entry!.id)!);
      lastFinalizedAt = Math.max(lastFinalizedAt, finalizedAt);
      if (endToEnd.length % 200 === 0) process.stderr.write(`finalized ${endToEnd.length}/${REPORTS}\n`);
    } else {
      due.push({ id: entry!.id, at: Date.now() + POLL_EVERY_MS });
    }
  }
});

const [createdSeconds] = await Promise.all([createdIn, Promise.all(pollers)]);
process.stdout.write(`${JSON.stringify({ reports: REPORTS, clients: CLIENTS, createdSeconds, finalizedSeconds: (lastFinalizedAt - started) / 1000, postMs, endToEnd, gets })}\n`);
