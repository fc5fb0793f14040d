/**
 * `npm run bench:proposals`: proposals created and run through a REPORT pipeline, over HTTP.
 *
 * Starts the whole service (every role, one process) on a throw-away embedded PostgreSQL with a
 * tenant, the personal credit product and a one-source policy that approves. Then CLIENTS
 * clients, in this process, each POST /v1/proposals and at once POST /v1/proposals/{id}/run
 * (kind REPORT) until PROPOSALS proposals exist, and the script waits until every execution has
 * its final status (the report processed by the sandbox sources, the process manager finishing
 * the execution). Prints proposals created and run per second (both replies received), executions
 * finished per second (from the first POST to the last final status), and p50/p99 of the
 * creation and run replies. The rate limits are raised (one credential sends everything) but
 * stay on. BENCH_PROPOSALS and BENCH_CLIENTS override the counts; the defaults stay well under
 * two minutes on two cores.
 */
import { checkDigitsOf } from '../domain/shared/document.ts';
import { startTestApp } from '../test/support/app.ts';
import { seedProduct } from '../test/support/catalog.ts';
import { provisionTenant } from '../test/support/identity.ts';

const PROPOSALS = Number(process.env.BENCH_PROPOSALS ?? 1000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const TARGET = { perSecond: 50, createP99Ms: 200 };
const DEADLINE_MS = 100_000;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

const app = await startTestApp({ RATE_LIMIT_PER_CREDENTIAL: '1000000', RATE_LIMIT_PER_ORGANIZATION: '1000000', LOG_LEVEL: 'fatal' });
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

  const createMs: number[] = [];
  const runMs: number[] = [];
  let next = 0;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = next++; i < PROPOSALS; i = next++) {
        const base = String(300_000_000 + i * 7919).padStart(9, '0');
        const created = await post('/v1/proposals', { document: base + checkDigitsOf('cpf', base), name: `Cliente ${i}`, productKey: 'credito-pessoal', requestedAmountCents: 1_000_000, requestedTermMonths: 12 });
        createMs.push(created.ms);
        runMs.push((await post(`/v1/proposals/${created.json.id}/run`, { kind: 'REPORT', targetId: policyId })).ms);
      }
    }),
  );
  const submittedSeconds = (performance.now() - begin) / 1000;

  let finished = 0;
  while (finished < PROPOSALS && performance.now() - begin < DEADLINE_MS) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    finished = Number((await app.app.db('operation_executions').whereNotNull('finished_at').count({ n: '*' }))[0]!.n);
  }
  const finishedSeconds = (performance.now() - begin) / 1000;

  createMs.sort((a, b) => a - b);
  runMs.sort((a, b) => a - b);
  const rows: Array<[string, string, string]> = [
    ['proposals created and run per second', (PROPOSALS / submittedSeconds).toFixed(1), `>= ${TARGET.perSecond}`],
    [`executions finished per second (${finished}/${PROPOSALS})`, (finished / finishedSeconds).toFixed(1), `>= ${TARGET.perSecond}`],
    ['POST /v1/proposals p50 ms', percentile(createMs, 50).toFixed(1), ''],
    ['POST /v1/proposals p99 ms', percentile(createMs, 99).toFixed(1), `< ${TARGET.createP99Ms}`],
    ['POST /v1/proposals/{id}/run p50 ms', percentile(runMs, 50).toFixed(1), ''],
    ['POST /v1/proposals/{id}/run p99 ms', percentile(runMs, 99).toFixed(1), ''],
  ];
  console.log(`\nbench:proposals  ${PROPOSALS} proposals, ${CLIENTS} clients, kind REPORT\n`);
  console.log('| measure | value | target |\n|-|-|-|');
  for (const [measure, value, target] of rows) console.log(`| ${measure} | ${value} | ${target} |`);
} finally {
  await app.stop();
}
