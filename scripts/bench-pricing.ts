/**
 * `npm run bench:pricing`: installment simulations of 360 months.
 *
 * 1. In-process: `simulate()` (domain/pricing) back to back for BENCH_SECONDS (default 5) after
 *    3,000 calls of warm-up, alternating PRICE and SAC, financed IOF, a financed fee, due dates
 *    moved over Brazil's holidays, the amount changing every call. Prints simulations per
 *    second (target >= 20,000), per CPU-second, and µs of CPU per simulation; then the same
 *    with each result's rows read (built on first read).
 * 2. Over HTTP: POST /v1/pricing/simulate on the whole service (authentication, gate,
 *    validation, rate limits raised but counted, index lookup, JSON of 360 rows) beside a bare
 *    koa route that parses the same body and runs the same `simulate()`: 16 keep-alive clients,
 *    the two alternating in three slices of BENCH_SLICE_SECONDS (default 4), each figure the
 *    median of its three. Prints both rates and their ratio (target >= 0.5).
 */
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { brazilHolidays } from '../application/pricing/holidays.ts';
import { IOF_RATES } from '../domain/pricing/iof.ts';
import { simulate, type SimulationInput } from '../domain/pricing/simulate.ts';
import { startTestApp } from '../test/support/app.ts';
import { provisionTenant } from '../test/support/identity.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 4);
const CLIENTS = 16;
const TARGET = { inProcess: 20_000, httpVsBare: 0.5 };

const body = (i: number) => ({
  amountCents: 5_000_000 + (i % 1000) * 137,
  termMonths: 360,
  entityType: 'PERSON' as const,
  releaseDate: '2026-11-23',
  firstDueDate: '2026-12-23',
  model: i % 2 ? ('SAC' as const) : ('PRICE' as const),
  rate: { value: '1.19', period: 'MONTH' as const },
  fees: [{ key: 'tac', name: 'Tarifa de cadastro', amountCents: 15_000, financed: true }],
  iof: { applies: true, financed: true },
  moveDueDatesToBusinessDay: true,
});

const inputOf = (b: ReturnType<typeof body>): SimulationInput => ({
  ...b,
  rate: { kind: 'FIXED', rate: b.rate },
  simplesNacional: false,
});

/**
 * Simulations per wall-clock second, and per second of this process's CPU time after a warm-up
 * (the JIT's first thousands of calls are not what a running service pays): on a shared machine
 * the CPU figures say what the code costs, whatever else competes for the cores. `rows`: read
 * each result's `installments` too, which builds the 360 row objects that simulate() leaves
 * until they are read (the HTTP reply and the offers always read them).
 */
function inProcess(rows: boolean): { wall: number; cpu: number; cpuMicros: number } {
  const call = (i: number) => {
    const result = simulate(inputOf(body(i)), brazilHolidays, IOF_RATES);
    if (rows && result.installments.length !== 360) throw new Error('360 rows expected');
  };
  let i = 0;
  for (; i < 3000; i++) call(i);
  const calls = i;
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  const cpu = process.cpuUsage();
  while (performance.now() < deadline) for (let k = 0; k < 50; k++) call(i++);
  const used = process.cpuUsage(cpu);
  const measured = i - calls;
  const micros = used.user + used.system;
  return { wall: measured / ((performance.now() - started) / 1000), cpu: measured / (micros / 1e6), cpuMicros: micros / measured };
}

/** The same computation behind the least a koa route can be: parse the JSON body, simulate, answer. */
async function startBare(): Promise<{ url: string; close(): Promise<void> }> {
  const koa = new Koa();
  koa.use(async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    ctx.body = simulate(inputOf(JSON.parse(Buffer.concat(chunks).toString())), brazilHolidays, IOF_RATES);
  });
  const server: Server = createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/pricing/simulate`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function post(url: string, agent: Agent, headers: Record<string, string>, payload: string): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve([res.statusCode ?? 0, Buffer.concat(chunks).toString()]));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** CLIENTS keep-alive loops POSTing for `seconds`; replies per second (every reply must be a 200). */
async function load(url: string, headers: Record<string, string>, seconds: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  let done = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = c; performance.now() < deadline; i += CLIENTS) {
        const [status, text] = await post(url, agent, headers, JSON.stringify(body(i)));
        if (status !== 200) throw new Error(`${url}: ${status} ${text.slice(0, 200)}`);
        done++;
      }
    }),
  );
  agent.destroy();
  return done / ((performance.now() - started) / 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[1]!;
const ok = (pass: boolean) => (pass ? 'ok' : 'MISSED');

const perSecond = inProcess(false);
const withRows = inProcess(true);
console.log(`load average before the run: ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
const app = await startTestApp({ RATE_LIMIT_PER_CREDENTIAL: '100000000', RATE_LIMIT_PER_ORGANIZATION: '100000000' });
const bare = await startBare();
try {
  const tenant = await provisionTenant(app, { name: 'Bench lender' });
  const ours: number[] = [];
  const theirs: number[] = [];
  await load(`${app.url}/v1/pricing/simulate`, { authorization: `Bearer ${tenant.token}` }, 1); // warm-up
  await load(bare.url, {}, 1);
  for (let slice = 0; slice < 3; slice++) {
    ours.push(await load(`${app.url}/v1/pricing/simulate`, { authorization: `Bearer ${tenant.token}` }, SLICE_SECONDS));
    theirs.push(await load(bare.url, {}, SLICE_SECONDS));
  }
  const [service, koa] = [median(ours), median(theirs)];
  const rows = [
    ['in-process simulate(), 360 months', `${Math.round(perSecond.wall)}/s`, `>= ${TARGET.inProcess}/s`, ok(perSecond.wall >= TARGET.inProcess)],
    ['same, per CPU-second of the process', `${Math.round(perSecond.cpu)}/s`, '', ''],
    ['CPU per simulation', `${perSecond.cpuMicros.toFixed(1)} µs`, `<= ${(1e6 / TARGET.inProcess).toFixed(0)} µs`, ok(perSecond.cpuMicros <= 1e6 / TARGET.inProcess)],
    ['same, reading the 360 rows of each', `${Math.round(withRows.wall)}/s, ${Math.round(withRows.cpu)} per CPU-second, ${withRows.cpuMicros.toFixed(1)} µs`, '', ''],
    ['POST /v1/pricing/simulate (service)', `${Math.round(service)}/s`, '', ''],
    ['same computation, bare koa route', `${Math.round(koa)}/s`, '', ''],
    ['service / bare', `${(service / koa).toFixed(2)}x`, `>= ${TARGET.httpVsBare}x`, ok(service / koa >= TARGET.httpVsBare)],
  ];
  console.log('| measure | result | target | |\n|-|-|-|-|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
} finally {
  await bare.close();
  await app.stop();
}
