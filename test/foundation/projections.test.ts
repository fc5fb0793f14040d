import bunyan from 'bunyan';
import type { Knex } from 'knex';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKnex } from '../../platform/database/knex.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import type { Position, RecordedEvent } from '../../platform/eventstore/port.ts';
import type { Projection } from '../../platform/projections/projection.ts';
import { createReadYourWrites } from '../../platform/projections/read-your-writes.ts';
import { rebuildProjection } from '../../platform/projections/rebuild.ts';
import { ProjectionRunner } from '../../platform/projections/runner.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';

const log = bunyan.createLogger({ name: 'test', level: 'fatal' });

interface Ctx {
  database: TestDatabase;
  store: PostgresEventStore;
  failOnce: Set<string>;
}
const test = suite<Ctx>('projection runner');

function counter(failOnce: Set<string>): Projection {
  return {
    name: 'test-counter',
    eventTypes: ['Counted'],
    tables: ['test_counts'],
    async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
      for (const event of events) {
        // A crash in the middle of a batch: nothing of the batch may stay applied.
        if (failOnce.delete(String(event.data.tag))) throw new Error('boom');
        await trx.raw('insert into test_counts (stream, n) values (?, 1) on conflict (stream) do update set n = test_counts.n + 1', [event.streamName]);
      }
    },
  };
}

async function counts(db: Knex): Promise<Record<string, number>> {
  const rows: { stream: string; n: number }[] = await db('test_counts').orderBy('stream');
  return Object.fromEntries(rows.map((r) => [r.stream, r.n]));
}

async function appendMany(store: PostgresEventStore, n: number, type = 'Counted'): Promise<Position> {
  let last: Position | undefined;
  for (let i = 0; i < n; i++) {
    last = (await store.appendToStream(`counter-${i % 5}`, [{ type, data: { tag: `${type}-${i}` } }])).position;
  }
  return last!;
}

function runner(db: Knex, store: PostgresEventStore, failOnce: Set<string>) {
  return new ProjectionRunner(db, store, [counter(failOnce)], { batchSize: 7, log, lockRetryMs: 50, resetCheckMs: 100 });
}

test.before.each(async (ctx) => {
  ctx.database = await createTestDatabase();
  await ctx.database.knex.schema.createTable('test_counts', (t) => {
    t.text('stream').primary();
    t.integer('n').notNullable();
  });
  ctx.store = new PostgresEventStore(ctx.database.knex, { pollIntervalMs: 10 });
  ctx.failOnce = new Set();
});

test.after.each(async (ctx) => {
  await ctx.store.close();
  await ctx.database.drop();
});

test('applies every event once and read-your-writes waits for it', async ({ database, store, failOnce }) => {
  const r = runner(database.knex, store, failOnce);
  await r.start();
  const position = await appendMany(store, 50);
  await createReadYourWrites(database.knex, log, 5000, r)(['test-counter'], position);
  assert.equal(await counts(database.knex), { 'counter-0': 10, 'counter-1': 10, 'counter-2': 10, 'counter-3': 10, 'counter-4': 10 });
  await r.stop();
});

test('a batch that fails is rolled back with its checkpoint and retried: no event applied twice', async ({ database, store, failOnce }) => {
  failOnce.add('Counted-23');
  const position = await appendMany(store, 40);
  const r = runner(database.knex, store, failOnce);
  await r.start();
  await createReadYourWrites(database.knex, log, 10000, r)(['test-counter'], position);
  assert.is(failOnce.size, 0, 'the failure happened');
  assert.equal(Object.values(await counts(database.knex)), [8, 8, 8, 8, 8]);
  await r.stop();
});

test('only one runner per projection across processes; the other takes over when it stops', async ({ database, store, failOnce }) => {
  const otherPool = createKnex(database.url, 5);
  const otherStore = new PostgresEventStore(otherPool, { pollIntervalMs: 10 });
  const a = runner(database.knex, store, failOnce);
  const b = runner(otherPool, otherStore, failOnce);
  await a.start();
  await b.start();
  let position = await appendMany(store, 30);
  await createReadYourWrites(database.knex, log, 5000)(['test-counter'], position);
  assert.equal(Object.values(await counts(database.knex)), [6, 6, 6, 6, 6]);
  await a.stop();
  position = await appendMany(store, 10);
  await createReadYourWrites(database.knex, log, 5000)(['test-counter'], position);
  assert.equal(Object.values(await counts(database.knex)), [8, 8, 8, 8, 8]);
  await b.stop();
  await otherStore.close();
  await otherPool.destroy();
});

test('resumes from its checkpoint after a restart', async ({ database, store, failOnce }) => {
  const first = runner(database.knex, store, failOnce);
  await first.start();
  let position = await appendMany(store, 20);
  await createReadYourWrites(database.knex, log, 5000, first)(['test-counter'], position);
  await first.stop();
  position = await appendMany(store, 15);
  const second = runner(database.knex, store, failOnce);
  await second.start();
  await createReadYourWrites(database.knex, log, 5000, second)(['test-counter'], position);
  assert.equal(Object.values(await counts(database.knex)), [7, 7, 7, 7, 7]);
  await second.stop();
});

test('a filtered projection moves past events it does not handle', async ({ database, store, failOnce }) => {
  const r = runner(database.knex, store, failOnce);
  await r.start();
  await appendMany(store, 5);
  const unrelated = await appendMany(store, 3, 'SomethingElse');
  // In this process at once; in the table (for other processes) after the next flush.
  await createReadYourWrites(database.knex, log, 3000, r)(['test-counter'], unrelated);
  assert.ok(r.localPosition('test-counter')!.commit >= unrelated.commit, 'this process sees it passed');
  await createReadYourWrites(database.knex, log, 3000)(['test-counter'], unrelated);
  const row = await database.knex('projection_checkpoints').where({ name: 'test-counter' }).first();
  assert.ok(BigInt(row.commit_position) >= unrelated.commit, 'the stored checkpoint passed the unrelated event');
  await r.stop();
});

test('rebuild replays into emptied tables, both offline and under a running projector', async ({ database, store, failOnce }) => {
  const position = await appendMany(store, 25);
  const projection = counter(failOnce);
  const offline = await rebuildProjection(database.knex, store, projection, { batchSize: 4 });
  assert.is(offline.events, 25);
  const expected = { 'counter-0': 5, 'counter-1': 5, 'counter-2': 5, 'counter-3': 5, 'counter-4': 5 };
  assert.equal(await counts(database.knex), expected);

  const r = runner(database.knex, store, failOnce);
  await r.start();
  await createReadYourWrites(database.knex, log, 5000, r)(['test-counter'], position);
  const progress: string[] = [];
  await rebuildProjection(database.knex, store, projection, { onProgress: (p) => progress.push(p.by) });
  assert.ok(progress.every((by) => by === 'runner'), 'the live projector replayed');
  assert.equal(await counts(database.knex), expected);
  await r.stop();
});

test.run();
