import bunyan from 'bunyan';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildContext } from '../../service/infrastructure.ts';
import { handleCommand } from '../../application/command-handler.ts';
import type { AppContext } from '../../application/context.ts';
import { createPolicy } from '../../application/credit-policy/commands.ts';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import { requestReport } from '../../application/report/commands.ts';
import { PROCESSING_CHECKPOINT, ReportProcessingWorker } from '../../application/report/processing/worker.ts';
import { runSource } from '../../application/report/sources/run-source.ts';
import { SandboxCatalog } from '../../application/report/sources/sandbox.ts';
import { reportDecider } from '../../domain/report/decider.ts';
import { reportStream } from '../../domain/report/events.ts';
import { loadConfig } from '../../config/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { testCaller } from '../support/report.ts';
import { eventually } from '../support/wait.ts';

const test = suite('report processing survives restarts');
let database: TestDatabase;
let store: PostgresEventStore;
let dataDir: string;
let policyId: string;

function appWith(sourceTimeoutMs: number): AppContext {
  const config = loadConfig({ DATABASE_URL: database.url, DATA_DIR: dataDir, SOURCE_TIMEOUT_MS: String(sourceTimeoutMs) });
  return buildContext(config, bunyan.createLogger({ name: 'test', level: 'fatal' }), { db: database.knex, store });
}

const eventsOf = (reportId: string) => store.readStream(reportStream(reportId));
const decided = async (reportId: string) => (await eventsOf(reportId)).some((e) => e.type === 'ReportDecided');
async function sectionCounts(reportId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const e of await eventsOf(reportId)) if (e.type === 'ReportSectionUpdated') counts[e.data.sectionType as string] = (counts[e.data.sectionType as string] ?? 0) + 1;
  return counts;
}

test.before(async () => {
  database = await createTestDatabase();
  store = new PostgresEventStore(database.knex, { pollIntervalMs: 10 });
  dataDir = mkdtempSync(join(tmpdir(), 'credit-restart-'));
  policyId = (await createPolicy(appWith(100), testCaller, DEMO_CPF_POLICY)).state.policyId!;
});
test.after(async () => {
  await store?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a report half recorded by a process that died is finished, without duplicate sections', async () => {
  const app = appWith(200);
  const { events } = await requestReport(app, testCaller, { document: '12345678909', type: 'cpf', policyId });
  const reportId = String(events[0]!.data.reportId);
  // What the dead process managed: PROCESSING and two sections.
  await handleCommand(store, reportStream(reportId), reportDecider, { type: 'StartProcessing', at: new Date().toISOString() });
  const sandbox = new SandboxCatalog();
  const document = { type: 'cpf' as const, digits: '12345678909' };
  const early = await Promise.all(
    (['PROTESTS', 'PEFIN'] as const).map((type) =>
      runSource(sandbox.providerFor(type, document), { reportId, organizationId: testCaller.organizationId, document, now: new Date() }, 200, () => new Date()),
    ),
  );
  await handleCommand(store, reportStream(reportId), reportDecider, {
    type: 'RecordSectionResults',
    results: early,
    policy: { ...DEMO_CPF_POLICY, policyId, version: 1 },
    at: '2020-01-01T00:00:00.000Z',
  });

  const worker = new ReportProcessingWorker();
  await worker.start(app);
  await eventually(() => decided(reportId));
  await worker.stop();

  const counts = await sectionCounts(reportId);
  assert.ok(
    Object.values(counts).every((n) => n === 1),
    JSON.stringify(counts),
  );
  assert.is(Object.keys(counts).length, DEMO_CPF_POLICY.sections.length + 2);
  const protests = (await eventsOf(reportId)).find((e) => e.type === 'ReportSectionUpdated' && e.data.sectionType === 'PROTESTS')!;
  assert.is(protests.data.updatedAt, '2020-01-01T00:00:00.000Z', 'the earlier answer stands');
  const checkpoint = await database.knex('projection_checkpoints').where({ name: PROCESSING_CHECKPOINT }).first();
  assert.ok(checkpoint, 'checkpoint saved behind finished work');

  // Started again from its checkpoint: nothing is done twice.
  const again = new ReportProcessingWorker();
  await again.start(app);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await again.stop();
  assert.equal(await sectionCounts(reportId), counts);
});

test('a stop in the middle leaves the report to the next start, which finishes it', async () => {
  // PROTESTS of this document never answers: with a long deadline the report is mid-way when stopped.
  const slow = appWith(60_000);
  const { events } = await requestReport(slow, testCaller, { document: '10000000361', type: 'cpf', policyId });
  const reportId = String(events[0]!.data.reportId);
  const first = new ReportProcessingWorker();
  await first.start(slow);
  await eventually(async () => Object.keys(await sectionCounts(reportId)).length === DEMO_CPF_POLICY.sections.length - 1);
  const stopping = Date.now();
  await first.stop();
  assert.ok(Date.now() - stopping < 5_000, 'stop does not wait for the source deadline');
  assert.not.ok(await decided(reportId));

  const next = new ReportProcessingWorker();
  await next.start(appWith(100));
  await eventually(() => decided(reportId));
  await next.stop();
  const counts = await sectionCounts(reportId);
  assert.ok(
    Object.values(counts).every((n) => n === 1),
    JSON.stringify(counts),
  );
  const protests = (await eventsOf(reportId)).find((e) => e.type === 'ReportSectionUpdated' && e.data.sectionType === 'PROTESTS')!;
  assert.is((protests.data.errors as Array<{ code: string }>)[0]!.code, 'INTEGRATION_TIMEOUT');
  const decision = (await eventsOf(reportId)).find((e) => e.type === 'ReportDecided')!;
  assert.is(decision.data.decision, 'MANUAL_ANALYSIS');
});

test.run();
