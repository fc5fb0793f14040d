import bunyan from 'bunyan';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildContext } from '../../service/infrastructure.ts';
import type { AppContext } from '../../application/context.ts';
import { createPolicy } from '../../application/credit-policy/commands.ts';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { requestReport } from '../../application/report/commands.ts';
import { ReportProcessingWorker } from '../../application/report/processing/worker.ts';
import { SandboxCatalog } from '../../application/report/sources/sandbox.ts';
import type { SourceCatalog } from '../../application/report/sources/port.ts';
import { reportStream } from '../../domain/report/events.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { loadConfig } from '../../config/index.ts';
import { LockNamespace } from '../../platform/database/advisory-lock.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { provisionTenant } from '../support/identity.ts';
import { testCaller, waitForReport } from '../support/report.ts';
import { eventually } from '../support/wait.ts';

/** The sandbox, counting how often each report's each source is queried. */
function countingCatalog(counts: Map<string, number>): SourceCatalog {
  const sandbox = new SandboxCatalog();
  return {
    providerFor(type, document) {
      const provider = sandbox.providerFor(type, document);
      return {
        ...provider,
        sectionType: provider.sectionType,
        integrationId: provider.integrationId,
        integrationType: provider.integrationType,
        query(query) {
          const key = `${query.reportId}:${type}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
          return provider.query(query);
        },
      };
    },
  };
}

const workers = suite<{ database: TestDatabase; store: PostgresEventStore; dataDir: string; log: bunyan.RingBuffer; app: AppContext }>('report processing: two workers on one checkpoint');
workers.before(async (ctx) => {
  ctx.database = await createTestDatabase();
  ctx.store = new PostgresEventStore(ctx.database.knex, { pollIntervalMs: 10 });
  ctx.dataDir = mkdtempSync(join(tmpdir(), 'credit-processing-'));
  ctx.log = new bunyan.RingBuffer({ limit: 1000 });
  const config = loadConfig({ DATABASE_URL: ctx.database.url, DATA_DIR: ctx.dataDir, SOURCE_TIMEOUT_MS: '2000' });
  const log = bunyan.createLogger({ name: 'test', streams: [{ type: 'raw', stream: ctx.log, level: 'info' }] });
  ctx.app = buildContext(config, log, { db: ctx.database.knex, store: ctx.store });
});
workers.after(async (ctx) => {
  await ctx.store?.close();
  await ctx.database?.drop();
  rmSync(ctx.dataDir, { recursive: true, force: true });
});

/** Backends of this database holding the report worker's advisory lock. */
async function lockHolders(database: TestDatabase): Promise<number[]> {
  const { rows } = await database.knex.raw(
    `select l.pid from pg_locks l join pg_database d on d.oid = l.database
      where l.locktype = 'advisory' and l.granted and l.classid = ? and d.datname = current_database()`,
    [LockNamespace.processManager],
  );
  return rows.map((row: { pid: number }) => row.pid);
}

const following = (ctx: { log: bunyan.RingBuffer }) => ctx.log.records.filter((r: { msg: string }) => r.msg === 'following report requests').length;

workers('a worker whose lock was lost loses the claim and queries no source; each source is queried once', async (ctx) => {
  const policyId = (await createPolicy(ctx.app, testCaller, DEMO_CPF_POLICY)).state.policyId!;
  const counts = new Map<string, number>();
  const first = new ReportProcessingWorker({ sources: countingCatalog(counts) });
  const second = new ReportProcessingWorker({ sources: countingCatalog(counts) });
  await first.start(ctx.app);
  await eventually(async () => following(ctx) === 1, { timeoutMs: 10_000, what: 'the first worker to follow' });
  await second.start(ctx.app);
  // The first worker's lock session dies under it (a dropped connection): it does not notice,
  // and the second worker takes the lock. Both now follow the same checkpoint.
  const [holder] = (await lockHolders(ctx.database)) as [number, number];
  await ctx.database.knex.raw('select pg_terminate_backend(?)', [holder]);
  await eventually(async () => following(ctx) === 2, { timeoutMs: 10_000, what: 'the second worker to follow' });
  try {
    const reportIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { events } = await requestReport(ctx.app, testCaller, { document: '12345678909', type: 'cpf', policyId });
      reportIds.push(String(events[0]!.data.reportId));
    }
    for (const reportId of reportIds) {
      await eventually(async () => (await ctx.store.readStream(reportStream(reportId))).some((e) => e.type === 'ReportDecided'), { timeoutMs: 10_000, what: `report ${reportId}` });
    }
    assert.is(counts.size, reportIds.length * DEMO_CPF_POLICY.sections.length);
    assert.equal(
      [...counts.entries()].filter(([, n]) => n !== 1),
      [],
      'no source was queried twice',
    );
    assert.ok(ctx.log.records.some((r: { msg: string }) => r.msg === 'another worker runs report processing; this one stands down'));
  } finally {
    await Promise.all([first.stop(), second.stop()]);
  }
});

workers.run();

const parking = suite<{ app: TestApp }>('report processing: a report that keeps failing is parked FAILED');
parking.before(async (ctx) => {
  // One slot: the failing report must let it go while it backs off, or the other would wait.
  ctx.app = await startTestApp({ REPORT_PROCESSING_CONCURRENCY: '1' });
});
parking.after(async (ctx) => {
  await ctx.app?.stop();
});

parking('after bounded attempts the report answers FAILED; another tenant finishes meanwhile', async ({ app }) => {
  const poisoned = await provisionTenant(app);
  const healthy = await provisionTenant(app, { name: 'Healthy organization' });
  const policy = await app.call('POST', '/credit-policy/policy', { token: healthy.token, body: DEMO_CPF_POLICY });
  // A request naming a policy version that does not exist: every attempt at it throws.
  const badId = app.app.ids.objectId();
  const sections = ['SUMMARY', ...DEMO_CPF_POLICY.sections, 'CREDIT_POLICY'].map((type) => ({ id: app.app.ids.objectId(), type }));
  await app.app.store.appendToStream(reportStream(badId), [
    {
      type: 'ReportRequested',
      data: {
        reportId: badId,
        organizationId: poisoned.organizationId,
        reportCreatedAt: new Date().toISOString(),
        document: '12345678909',
        type: 'cpf',
        status: 'PENDING',
        policyStatus: 'PENDING',
        score: null,
        externalId: null,
        policyId: app.app.ids.objectId(),
        policyVersion: 1,
        userId: poisoned.userId,
        policyName: 'Missing',
        skippedSections: [],
        yearMonthDay: 20260101,
        sections,
        ranWithoutSCRReason: null,
        inputs: {},
      },
    },
  ]);
  const created = await app.call('POST', '/v2/report', { token: healthy.token, body: { document: '52998224725', type: 'cpf', policyId: policy.body.id } });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const done = await waitForReport(app, healthy.token, created.body.id);
  assert.ok(['APPROVED', 'DENIED', 'MANUAL_ANALYSIS'].includes(done.status.value));

  const failed = await eventually(
    async () => {
      const reply = await app.call('GET', `/v2/report/${badId}`, { token: poisoned.token });
      return reply.status === 200 && reply.body.status.value === 'FAILED' ? reply.body : undefined;
    },
    { timeoutMs: 20_000, what: 'the failing report to be parked' },
  );
  assert.equal(failed.status, { id: 6, value: 'FAILED', title: 'Falha no processamento' });
  const events = await app.app.store.readStream(reportStream(badId));
  const parked = events.filter((e) => e.type === 'ReportProcessingFailed');
  assert.is(parked.length, 1);
  assert.is(parked[0]!.data.reason, Messages.reportProcessingFailed);
  assert.is(parked[0]!.data.attempts, 5);
  const decidedAt = (await app.app.store.readStream(reportStream(created.body.id))).find((e) => e.type === 'ReportDecided')!.createdAt;
  assert.ok(decidedAt < parked[0]!.createdAt, 'the healthy report did not wait for the failing one');
});

parking.run();
