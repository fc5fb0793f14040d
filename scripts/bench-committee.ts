/**
 * `npm run bench:committee`: the committee through the OpenAI-compatible adapter against a real
 * chat completions server on 127.0.0.1 that answers every call after 300 ms (BENCH_LLM_DELAY_MS).
 *
 * Starts the whole service (every role, one process) on a throw-away embedded PostgreSQL with a
 * tenant, a CNPJ policy and BENCH_DELIBERATIONS (default 20) finalized reports. After one untimed
 * warm-up deliberation: one deliberation convened by POST /report/{id}/committee, timed from the POST to GET
 * /committee/deliberations/{id} answering DONE (target < 1.2 s: the seven specialists run side by
 * side, then the chair); then one on every report at once, timed from the first POST to the last
 * DONE (target < 3 s for 20). Prints the wall times, the deliberations' own durationMs and calls.
 */
import { DEMO_CNPJ_POLICY } from '../application/credit-policy/demo-policies.ts';
import { checkDigitsOf } from '../domain/shared/document.ts';
import { startTestApp } from '../test/support/app.ts';
import { startCommitteeChatServer } from '../test/support/committee-chat-server.ts';
import { provisionTenant } from '../test/support/identity.ts';
import { waitForReport } from '../test/support/report.ts';
import { endBench } from './bench-method.ts';

const COUNT = Number(process.env.BENCH_DELIBERATIONS ?? 20);
const DELAY_MS = Number(process.env.BENCH_LLM_DELAY_MS ?? 300);
const TARGET_ONE_MS = 1200;
const TARGET_ALL_MS = 3000;

const chat = await startCommitteeChatServer({ delayMs: DELAY_MS });
const app = await startTestApp({
  LLM_PROVIDER: 'openai-compatible',
  LLM_BASE_URL: chat.url,
  LLM_MODEL: 'bench-model',
  RATE_LIMIT_PER_CREDENTIAL: '1000000',
  RATE_LIMIT_PER_ORGANIZATION: '1000000',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'fatal',
});
let failed = false;
try {
  const tenant = await provisionTenant(app);
  const call = async (method: string, path: string, body?: unknown) => {
    const reply = await app.call(method, path, { token: tenant.token, body });
    if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const policy = await call('POST', '/credit-policy/policy', { ...DEMO_CNPJ_POLICY, name: 'Bench do comitê' });
  const reportIds: string[] = [];
  for (let i = 0; i <= COUNT + 1; i++) {
    const base = String(20_000_000_0001 + i * 10_000).padStart(12, '0');
    const report = await call('POST', '/v2/report', { document: base + checkDigitsOf('cnpj', base), type: 'cnpj', policyId: policy.id });
    reportIds.push(report.id);
  }
  for (const id of reportIds) await waitForReport(app, tenant.token, id, 60_000);

  /** POST the convocation, then poll until DONE; returns the deliberation. */
  const deliberate = async (reportId: string) => {
    const started = await call('POST', `/report/${reportId}/committee`);
    for (;;) {
      const reply = await app.call('GET', `/committee/deliberations/${reportId}`, { token: tenant.token });
      if (reply.body.id === started.id && reply.body.status !== 'RUNNING') {
        if (reply.body.status !== 'DONE') throw new Error(`deliberation ${started.id}: ${reply.body.status} ${reply.body.error}`);
        return reply.body;
      }
      // 50 ms: twenty clients polling faster would take the CPU the deliberations need on a small machine.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  // Warm-up (not timed): the first call of a process pays for module loading, JIT and new connections.
  await deliberate(reportIds.pop()!);
  const callsBefore = chat.calls;
  const oneStart = performance.now();
  const one = await deliberate(reportIds[0]!);
  const oneMs = performance.now() - oneStart;
  const oneCalls = chat.calls - callsBefore;

  const allStart = performance.now();
  const all = await Promise.all(reportIds.slice(1).map(deliberate));
  const allMs = performance.now() - allStart;
  const durations = all.map((d) => d.durationMs as number).sort((a, b) => a - b);

  const rows = [
    ['one deliberation, wall (POST to DONE)', `${oneMs.toFixed(0)} ms`, `< ${TARGET_ONE_MS} ms`, oneMs < TARGET_ONE_MS ? 'ok' : 'MISSED'],
    ['  its durationMs (start to finish event)', `${one.durationMs} ms`, '', ''],
    ['  model calls', String(oneCalls), '8', oneCalls === 8 ? 'ok' : 'MISSED'],
    [`${COUNT} concurrent deliberations, wall`, `${allMs.toFixed(0)} ms`, `< ${TARGET_ALL_MS} ms`, allMs < TARGET_ALL_MS ? 'ok' : 'MISSED'],
    ['  durationMs min / median / max', `${durations[0]} / ${durations[Math.floor(durations.length / 2)]} / ${durations[durations.length - 1]} ms`, '', ''],
  ];
  console.log(`committee bench: OpenAI-compatible adapter, local server answering after ${DELAY_MS} ms`);
  for (const row of rows) console.log(`${row[0]!.padEnd(44)} ${row[1]!.padStart(22)}  ${row[2]!.padEnd(10)} ${row[3]}`);
  failed = rows.some((row) => row[3] === 'MISSED');
} finally {
  await app.stop();
  await chat.close();
}
await endBench(failed ? 1 : 0);
