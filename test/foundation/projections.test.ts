import bunyan from 'bunyan';
import type { Knex } from 'knex';
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKnex } from '../../platform/database/knex.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import { comparePositions } from '../../platform/eventstore/port.ts';
import type { Projection } from '../../platform/projections/projection.ts';
import { createReadYourWrites } from '../../platform/projections/read-your-writes.ts';
import { rebuildProjection } from '../../platform/projections/rebuild.ts';
import { ProjectionRunner, type RunnerOptions } from '../../platform/projections/runner.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { COUNTER, appendCounted, appliedCounts, checkpointOf, counter, createAppliedTable, exactlyOnce, fencedCounter, reached } from './projections-support.ts';
import { eventually } from '../support/wait.ts';

const log = bunyan.createLogger({ name: 'test', level: 'fatal' });

interface Ctx {
  database: TestDatabase;
  store: PostgresEventStore;
}
const test = suite<Ctx>('projection runner');

function runner(db: Knex, store: PostgresEventStore, projection: Projection = counter(), options: Partial<RunnerOptions> = {}) {
  return new ProjectionRunner(db, store, [projection], { batchSize: 7, log, lockRetryMs: 20, flushMs: 50, retryDelayMs: 10, ...options });
}

test.before.each(async (ctx) => {
  ctx.database = await createTestDatabase();
  await createAppliedTable(ctx.database.knex);
  ctx.store = new PostgresEventStore(ctx.database.knex, { pollIntervalMs: 10 });
});

test.after.each(async (ctx) => {
  await ctx.store.close();
  await ctx.database.drop();
});

test('applies every event once and read-your-writes waits for it', async ({ database, store }) => {
  const r = runner(database.knex, store);
  await r.start();
  const positions = await appendCounted(store, 50);
  await createReadYourWrites(database.knex, log, 60_000, r)([COUNTER], positions.at(-1)!);
  assert.equal(await exactlyOnce(database.knex, 50), []);
  await r.stop();
});

test('progress says whether the step wrote events of the projection or only moved past others', async ({ database, store }) => {
  const r = runner(database.knex, store);
  const steps: boolean[] = [];
  r.onProgress((wrote) => steps.push(wrote));
  await r.start();
  const others = await appendCounted(store, 3, 'Other');
  await eventually(
    () => {
      const at = r.localPosition(COUNTER);
      return !!at && comparePositions(at, others.at(-1)!) >= 0;
    },
    { what: 'the runner to pass the others' },
  );
  assert.ok(steps.length > 0 && steps.every((wrote) => !wrote), `only moved past: ${steps}`);
  const counted = await appendCounted(store, 2);
  await eventually(() => reached(database.knex, counted.at(-1)!), { what: 'the counted events' });
  assert.ok(steps.includes(true), 'the counted events were written');
  await r.stop();
});

test('a batch that fails is never passed by the checkpoint before it is written', async ({ database, store }) => {
  const positions = await appendCounted(store, 40);
  const poisoned = positions[23]!;
  // Record any checkpoint write that passes Counted-23 while Counted-23 is not applied in the same
  // transaction: exactly what a flush of a position recorded before its batch was written does.
  await database.knex.schema.createTable('test_violations', (t) => t.text('at'));
  await database.knex.raw(`
    create function test_check() returns trigger language plpgsql as $$
    begin
      if new.name = '${COUNTER}' and (new.commit_position, new.prepare_position) >= (${poisoned.commit}, ${poisoned.prepare})
         and not exists (select 1 from test_applied where tag = 'Counted-23') then
        insert into test_violations values (new.commit_position || '/' || new.prepare_position);
      end if;
      return new;
    end $$`);
  await database.knex.raw(`create trigger test_check after update on projection_checkpoints for each row execute function test_check()`);
  let failed = false;
  // The failure takes many flush periods, so flushes are due while the batch is failing.
  const failing = counter('A', async (tag) => {
    if (tag === 'Counted-23' && !failed) {
      failed = true;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      throw new Error('boom');
    }
  });
  const r = runner(database.knex, store, failing);
  await r.start();
  await eventually(() => reached(database.knex, positions.at(-1)!), { what: 'the projection to pass every event' });
  await r.stop();
  assert.ok(failed, 'the batch failed once');
  assert.equal(await database.knex('test_violations').pluck('at'), [], 'no checkpoint passed the failed batch');
  assert.equal(await exactlyOnce(database.knex, 40), []);
});

test('a lease lost in the middle of a batch: the old holder cannot write it and stops', async ({ database, store }) => {
  let entered = false;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const slow = counter('A', async (tag) => {
    if (tag === 'Counted-10' && !entered) {
      entered = true;
      await gate;
    }
  });
  const r = runner(database.knex, store, slow);
  await r.start();
  const positions = await appendCounted(store, 20);
  await eventually(() => entered, { what: 'the batch holding Counted-10 to start' });
  // Another worker takes over, as it would once this one's lease ran out.
  await database
    .knex('projection_leases')
    .where({ name: COUNTER })
    .update({ owner: 'intruder', token: database.knex.raw('token + 1'), expires_at: database.knex.raw(`now() + interval '1 hour'`) });
  release();
  await eventually(() => !r.holds(COUNTER), { what: 'the old holder to notice it lost the lease' });
  const at = await checkpointOf(database.knex);
  assert.ok(!at || comparePositions(at, positions[10]!) < 0, 'the batch was not committed');
  const counts = await appliedCounts(database.knex);
  assert.not.ok(counts.has('Counted-10'), 'nothing of the batch was written');
  positions.forEach((p, i) => assert.is(counts.get(`Counted-${i}`) ?? 0, at && comparePositions(p, at) <= 0 ? 1 : 0, `Counted-${i}`));

  // The intruder goes away: the lease comes back and the events are applied once.
  await database
    .knex('projection_leases')
    .where({ name: COUNTER })
    .update({ expires_at: database.knex.raw(`now() - interval '1 second'`) });
  await eventually(() => reached(database.knex, positions.at(-1)!), { what: 'the projection to finish' });
  await r.stop();
  assert.equal(await exactlyOnce(database.knex, 20), []);
});

for (const [writes, projectionOf] of [
  ['in a transaction', counter],
  ['in one statement', fencedCounter],
] as const) {
  test(`two workers on one checkpoint, batches ${writes}, the lease taken from each in turn mid-stream: every event applied once`, async ({ database, store }) => {
    const db = database.knex;
    const otherPool = createKnex(database.url, 5);
    const otherStore = new PostgresEventStore(otherPool, { pollIntervalMs: 10 });
    let positions = await appendCounted(store, 100);
    const a = runner(db, store, projectionOf('A'));
    const b = runner(otherPool, otherStore, projectionOf('B'));
    // Both start against the same backlog at the same moment.
    await Promise.all([a.start(), b.start()]);
    const deadline = Date.now() + 120_000;
    for (;;) {
      // One read of the checkpoint decides both whether to append and what progress to wait for:
      // read twice, the projection could catch up in between and the wait below never end.
      const at = await checkpointOf(db);
      const caughtUp = !!at && comparePositions(at, positions.at(-1)!) >= 0;
      // A batch in one statement marks its rows A1 or B1: the worker is the first letter.
      const workers = new Set((await db('test_applied').distinct().pluck('by')).map((by: string) => by[0]));
      if (caughtUp && workers.size === 2) break;
      assert.ok(Date.now() < deadline, `both workers took part in time (so far: ${[...workers]})`);
      if (caughtUp) positions = [...positions, ...(await appendCounted(store, 5, 'Counted', positions.length))];
      // Let the current holder write a batch, then take the lease from it as if it had expired.
      await eventually(
        async () => {
          const now = await checkpointOf(db);
          return !!now && (!at || comparePositions(now, at) > 0);
        },
        { what: 'progress under the current holder' },
      );
      await db('projection_leases')
        .where({ name: COUNTER })
        .update({ expires_at: db.raw(`now() - interval '1 second'`) });
    }
    await a.stop();
    await b.stop();
    await otherStore.close();
    await otherPool.destroy();
    assert.equal(await exactlyOnce(db, positions.length), []);
    if (projectionOf === fencedCounter) assert.ok(await db('test_applied').whereIn('by', ['A1', 'B1']).first(), 'batches were written in one statement');
  });
}

test('a lease left by a process of this host that is gone is taken over at once, not when it expires', async ({ database, store }) => {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  await database.knex('projection_leases').insert({ name: COUNTER, owner: `${hostname()}:${child.pid}:killed`, token: 7, expires_at: database.knex.raw(`now() + interval '1 hour'`) });
  const r = runner(database.knex, store);
  await r.start();
  const positions = await appendCounted(store, 5);
  await eventually(() => reached(database.knex, positions.at(-1)!), { what: 'the new process to project' });
  await r.stop();
  assert.equal(await exactlyOnce(database.knex, 5), []);
});

test('a transaction left idle holding the checkpoint row is ended by the database: the projection goes on', async ({ database, store }) => {
  const r = runner(database.knex, store);
  await r.start();
  let positions = await appendCounted(store, 3);
  await eventually(() => reached(database.knex, positions.at(-1)!), { what: 'the checkpoint row to exist' });
  // Another client of the service forgets a transaction holding the row every batch needs.
  const careless = createKnex(database.url, 1, { statementTimeoutMs: 30_000, idleInTransactionTimeoutMs: 300 });
  const forgotten = await careless.transaction();
  await forgotten('projection_checkpoints').where({ name: COUNTER }).forUpdate();
  positions = await appendCounted(store, 3, 'Counted', 3);
  await eventually(() => reached(database.knex, positions.at(-1)!), { what: 'the projection to get past the forgotten transaction' });
  await r.stop();
  forgotten.executionPromise.catch(() => undefined);
  await forgotten.rollback().catch(() => undefined);
  await careless.destroy();
  assert.equal(await exactlyOnce(database.knex, 6), []);
});

test('resumes from its checkpoint after a restart', async ({ database, store }) => {
  const first = runner(database.knex, store);
  await first.start();
  let positions = await appendCounted(store, 20);
  await createReadYourWrites(database.knex, log, 60_000, first)([COUNTER], positions.at(-1)!);
  await first.stop();
  positions = await appendCounted(store, 15, 'Counted', 20);
  const second = runner(database.knex, store);
  await second.start();
  await createReadYourWrites(database.knex, log, 60_000, second)([COUNTER], positions.at(-1)!);
  await second.stop();
  assert.equal(await exactlyOnce(database.knex, 35), []);
});

test('a filtered projection moves past events it does not handle', async ({ database, store }) => {
  const r = runner(database.knex, store);
  await r.start();
  await appendCounted(store, 5);
  const unrelated = (await appendCounted(store, 3, 'SomethingElse')).at(-1)!;
  // In this process at once; in the table (for other processes) after the next flush.
  await createReadYourWrites(database.knex, log, 60_000, r)([COUNTER], unrelated);
  assert.ok(r.localPosition(COUNTER)!.commit >= unrelated.commit, 'this process sees it passed');
  await eventually(() => reached(database.knex, unrelated), { what: 'the stored checkpoint to pass the unrelated event' });
  await r.stop();
});

test('rebuild replays beside the live table and switches, offline and under a running projector', async ({ database, store }) => {
  const positions = await appendCounted(store, 25);
  const offline = await rebuildProjection(database.knex, store, counter('rebuild'), { batchSize: 4 });
  assert.is(offline.events, 25);
  assert.equal(await exactlyOnce(database.knex, 25), []);
  assert.ok(await reached(database.knex, positions.at(-1)!), 'the checkpoint is where the new table is');

  const r = runner(database.knex, store);
  await r.start();
  await appendCounted(store, 10, 'Counted', 25);
  await rebuildProjection(database.knex, store, counter('rebuild'), { batchSize: 4 });
  // The live runner goes on after the switch, on the new table, without applying anything twice.
  const more = await appendCounted(store, 10, 'Counted', 35);
  await eventually(() => reached(database.knex, more.at(-1)!), { what: 'the runner to apply events after the switch' });
  await r.stop();
  assert.equal(await exactlyOnce(database.knex, 45), []);
  const { rows } = await database.knex.raw(`select nspname from pg_namespace where nspname like 'rebuild_%' or nspname like 'retired_%'`);
  assert.equal(rows, [], 'no schema left behind');
});

test.run();
