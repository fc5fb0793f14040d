import bunyan from 'bunyan';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AppContext } from '../../application/context.ts';
import { createPolicy } from '../../application/credit-policy/commands.ts';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { requestReport } from '../../application/report/commands.ts';
import { PROCESSING_CHECKPOINT, ReportProcessingWorker } from '../../application/report/processing/worker.ts';
import { loadConfig } from '../../config/index.ts';
import { reportStream } from '../../domain/report/events.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import { buildContext } from '../../service/infrastructure.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { stopsWithin } from '../support/stop.ts';
import { testCaller } from '../support/report.ts';
import { eventually } from '../support/wait.ts';

const test = suite<{ database: TestDatabase; store: PostgresEventStore; dataDir: string; log: bunyan.RingBuffer; app: AppContext }>(
  'report processing: its checkpoint under a slow database, and a stop during start-up',
);
test.before(async (ctx) => {
  ctx.database = await createTestDatabase();
  ctx.store = new PostgresEventStore(ctx.database.knex, { pollIntervalMs: 10 });
  ctx.dataDir = mkdtempSync(join(tmpdir(), 'credit-processing-checkpoint-'));
  ctx.log = new bunyan.RingBuffer({ limit: 1000 });
  const config = loadConfig({ DATABASE_URL: ctx.database.url, DATA_DIR: ctx.dataDir, SOURCE_TIMEOUT_MS: '2000' });
  const log = bunyan.createLogger({ name: 'test', streams: [{ type: 'raw', stream: ctx.log, level: 'info' }] });
  ctx.app = buildContext(config, log, { db: ctx.database.knex, store: ctx.store });
});
test.after(async (ctx) => {
  await ctx.store.close();
  await ctx.database.drop();
  rmSync(ctx.dataDir, { recursive: true, force: true });
});

test('checkpoint writes slower than the save timer go one after another; the worker keeps following', async (ctx) => {
  const policyId = (await createPolicy(ctx.app, testCaller, DEMO_CPF_POLICY)).state.policyId!;
  // A slow database, as under load: each write of the checkpoint takes longer than the 200 ms
  // between the timer's saves. (A trigger, not a held row lock: a transaction holding a lock
  // would also hold back the store's ordering horizon, and no event would reach the worker.)
  await ctx.database.knex.raw(`
    create function test_slow_checkpoint() returns trigger language plpgsql as $$
    begin
      if new.name = '${PROCESSING_CHECKPOINT}' then perform pg_sleep(0.5); end if;
      return new;
    end $$`);
  await ctx.database.knex.raw('create trigger test_slow_checkpoint before update on projection_checkpoints for each row execute function test_slow_checkpoint()');
  const worker = new ReportProcessingWorker();
  await worker.start(ctx.app);
  try {
    const reportIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { events } = await requestReport(ctx.app, testCaller, { document: '12345678909', type: 'cpf', policyId });
      reportIds.push(String(events[0]!.data.reportId));
    }
    for (const reportId of reportIds) {
      await eventually(async () => (await ctx.store.readStream(reportStream(reportId))).some((e) => e.type === 'ReportDecided'), { timeoutMs: 30_000, what: `report ${reportId}` });
    }
    const requestedAt = (await ctx.store.readStream(reportStream(reportIds.at(-1)!)))[0]!.position;
    await eventually(
      async () => {
        const row = await ctx.database.knex('projection_checkpoints').where({ name: PROCESSING_CHECKPOINT }).first();
        return BigInt(row.commit_position) >= requestedAt.commit;
      },
      { timeoutMs: 30_000, what: 'the checkpoint to pass the last report' },
    );
    assert.not.ok(
      ctx.log.records.some((r: { msg: string }) => r.msg === 'another worker runs report processing; this one stands down'),
      'the worker did not stand down for its own write',
    );
  } finally {
    await worker.stop();
  }
});

test('stopped while it is still taking its lock and reading its checkpoints: the stop ends', async (ctx) => {
  const worker = new ReportProcessingWorker();
  await worker.start(ctx.app);
  // SIGTERM right after start-up: the first round is between its awaits and has not subscribed
  // yet when stop() looks for its subscription.
  assert.ok(await stopsWithin(worker, 5000), 'stop() still waiting after 5 s');
});

test.run();
