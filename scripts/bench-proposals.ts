/**
 * `npm run bench:proposals`: proposals created and run through a REPORT pipeline, over HTTP.
 *
 * Starts the whole service (every role, one process) on a throw-away embedded PostgreSQL with a
 * tenant, the personal credit product and a one-source policy that approves. Then CLIENTS
 * clients, in a process of their own (scripts/bench-proposals-load.ts: a load generator must not
 * share the service's event loop), each POST /v1/proposals and at once POST
 * /v1/proposals/{id}/run (kind REPORT) until PROPOSALS proposals exist, and the script waits until
 * every execution has its final status (the report processed by the sandbox sources, the process
 * manager finishing the execution). Prints proposals created and run per second (both replies
 * received), executions finished per second (from the first proposal created to the last final
 * status, by the database's clock), and p50/p99 of the
 * creation and run replies. The rate limits are raised (one credential sends everything) but
 * stay on. BENCH_PROPOSALS and BENCH_CLIENTS override the counts; the defaults stay well under
 * two minutes on two cores.
 *
 * On a shared machine the rates move with the load, so the bench also prints what a proposal
 * costs whatever else runs: the service's CPU (this process: the API and every worker) and the
 * SQL statements the service sent (each one a round trip), from the first POST until every
 * execution finished, per proposal; and the statements and awaits of one POST /v1/proposals
 * alone (BENCH_TRACE=1 lists that request's statements).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Server, type IncomingMessage } from 'node:http';
import { loadavg } from 'node:os';
import { startTestApp } from '../test/support/app.ts';
import { seedProduct } from '../test/support/catalog.ts';
import { provisionTenant } from '../test/support/identity.ts';
import { runClient } from './bench-client.ts';

const PROPOSALS = Number(process.env.BENCH_PROPOSALS ?? 1000);
// Enough clients to keep the service busy: each waits for its run reply, which waits for the
// operation read model (read-your-writes), so 16 of them (48.6-50.8/s) left it idle between requests.
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 24);
const TARGET = { perSecond: 50, createP99Ms: 200 };
const DEADLINE_MS = 100_000;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

/**
 * Which request a statement was sent for: every request the service's server receives runs in
 * an async context naming it (method and path with ids as :id), which the promises of koa, knex
 * and pg carry to the statement. Statements of no request are the workers'.
 */
const requestOf = new AsyncLocalStorage<string>();
const emit = Server.prototype.emit as (this: Server, event: string, ...args: unknown[]) => boolean;
Server.prototype.emit = function (this: Server, event: string, ...args: unknown[]) {
  if (event !== 'request') return emit.call(this, event, ...args);
  const { method, url } = args[0] as IncomingMessage;
  return requestOf.run(`${method} ${url?.replace(/[0-9a-f]{24}/g, ':id')}`, () => emit.call(this, event, ...args));
} as typeof Server.prototype.emit;

/** Waits until every execution started has its final status, and the followers had a moment to read it. */
async function settle(app: Awaited<ReturnType<typeof startTestApp>>) {
  const open = async () => Number((await app.app.db('operation_executions').whereNull('finished_at').count({ n: '*' }))[0]!.n);
  while ((await open()) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
  await new Promise((resolve) => setTimeout(resolve, 500));
}

// The service as configured for production: the tests' 10 ms poll (test/support/app.ts) made each
// of the ~20 idle $all subscriptions read the store 100 times a second, about half of every
// statement the bench sent; appends in this process wake the subscriptions at once either way.
// BENCH_POLL_MS=10 measures as before.
const POLL_MS = process.env.BENCH_POLL_MS ?? '50'; // PROJECTION_POLL_MS's default in config/schema.ts
const app = await startTestApp({ RATE_LIMIT_PER_CREDENTIAL: '1000000', RATE_LIMIT_PER_ORGANIZATION: '1000000', LOG_LEVEL: 'fatal', PROJECTION_POLL_MS: POLL_MS });
try {
  const tenant = await provisionTenant(app);
  await seedProduct(app, tenant.organizationId);
  const headers = { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const started = performance.now();
    const response = await fetch(app.url + path, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = await response.json();
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return { json, ms: performance.now() - started };
  };
  const policy = await post('/credit-policy/policy', {
    name: 'Bench',
    documentType: 'cpf',
    sections: ['BASIC_INFORMATION'],
    score: { base: 800, approveFrom: 500, denyBelow: 200, factors: [] },
    groups: [],
  });
  const policyId = policy.json.id as string;

  // Every statement is one round trip to PostgreSQL; one proposal alone first (nothing else is running).
  let statements = 0;
  const kinds = new Map<string, number>();
  const byRequest = new Map<string, number>();
  app.app.db.on('query', (query: { sql: string }) => {
    statements++;
    const request = requestOf.getStore() ?? 'workers';
    byRequest.set(request, (byRequest.get(request) ?? 0) + 1);
    const sql = query.sql.replace(/\s+/g, ' ').slice(0, 110);
    if (process.env.BENCH_TRACE && request.startsWith('POST /v1/proposals')) console.log(`  [${request}] ${sql}`);
    kinds.set(sql, (kinds.get(sql) ?? 0) + 1);
  });
  await settle(app);
  byRequest.clear();
  await post('/v1/proposals', { document: '52998224725', name: 'Cliente avulso', productKey: 'credito-pessoal', requestedAmountCents: 1_000_000, requestedTermMonths: 12 });
  const oneCreate = byRequest.get('POST /v1/proposals') ?? 0;
  await settle(app);
  kinds.clear();
  byRequest.clear();

  const statementsAtStart = statements;
  const cpuAtStart = process.cpuUsage();
  const launched = new Date();
  const load = runClient<{ createMs: number[]; runMs: number[]; submittedSeconds: number }>('./bench-proposals-load.ts', {
    URL: app.url,
    TOKEN: tenant.token,
    POLICY_ID: policyId,
    PROPOSALS: String(PROPOSALS),
    CLIENTS: String(CLIENTS),
  });
  const finishedCount = async () => Number((await app.app.db('operation_executions').whereNotNull('finished_at').where('started_at', '>=', launched).count({ n: '*' }))[0]!.n);
  let finished = 0;
  const deadline = performance.now() + DEADLINE_MS;
  while (finished < PROPOSALS && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    finished = await finishedCount();
  }
  const { createMs, runMs, submittedSeconds } = await load;
  const cpu = process.cpuUsage(cpuAtStart);
  // From the first proposal the clients created to the last execution that finished, by the database's clock.
  const span = await app.app
    .db('operation_executions')
    .where('started_at', '>=', launched)
    .first(app.app.db.raw('extract(epoch from max(finished_at) - (select min(created_at) from proposal_facts where created_at >= ?))::float as seconds', [launched]));
  const finishedSeconds = Number(span.seconds);
  if (process.env.BENCH_TRACE)
    [...kinds]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .forEach(([sql, n]) => console.log(`${String(n).padStart(7)} ${sql}`));
  const perProposal = { cpuMs: (cpu.user + cpu.system) / 1000 / PROPOSALS, statements: (statements - statementsAtStart) / PROPOSALS };

  createMs.sort((a, b) => a - b);
  runMs.sort((a, b) => a - b);
  const rows: Array<[string, string, string]> = [
    ['proposals created and run per second', (PROPOSALS / submittedSeconds).toFixed(1), `>= ${TARGET.perSecond}`],
    [`executions finished per second (${finished}/${PROPOSALS})`, (finished / finishedSeconds).toFixed(1), `>= ${TARGET.perSecond}`],
    ['POST /v1/proposals p50 ms', percentile(createMs, 50).toFixed(1), ''],
    ['POST /v1/proposals p99 ms', percentile(createMs, 99).toFixed(1), `< ${TARGET.createP99Ms}`],
    ['POST /v1/proposals/{id}/run p50 ms', percentile(runMs, 50).toFixed(1), ''],
    ['POST /v1/proposals/{id}/run p99 ms', percentile(runMs, 99).toFixed(1), ''],
    ['CPU of the service per proposal created, run and finished, ms', perProposal.cpuMs.toFixed(2), ''],
    ['SQL statements per proposal created, run and finished (with the polls of idle workers)', perProposal.statements.toFixed(1), ''],
    ['SQL statements of one POST /v1/proposals, alone', String(oneCreate), ''],
    ...[...byRequest].sort((a, b) => b[1] - a[1]).map(([request, n]): [string, string, string] => [`SQL statements per proposal: ${request}`, (n / PROPOSALS).toFixed(1), '']),
  ];
  console.log(
    `load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(`\nbench:proposals  ${PROPOSALS} proposals, ${CLIENTS} clients, kind REPORT\n`);
  console.log('| measure | value | target |\n|-|-|-|');
  for (const [measure, value, target] of rows) console.log(`| ${measure} | ${value} | ${target} |`);
} finally {
  await app.stop();
}
