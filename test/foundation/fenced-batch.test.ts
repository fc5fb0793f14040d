import type { Knex } from 'knex';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import { START, type RecordedEvent } from '../../platform/eventstore/port.ts';
import { CheckpointMoved, LiveTarget, writeBatch } from '../../platform/projections/apply.ts';
import { LeaseLost, newLeaseOwner, tryAcquireLease, type Lease } from '../../platform/projections/leases.ts';
import { projectionContext, type Projection } from '../../platform/projections/projection.ts';
import { createTestDatabase, statementsDuring, type TestDatabase } from '../support/db.ts';
import { COUNTER, appliedCounts, checkpointOf, counter, createAppliedTable, fencedCounter } from './projections-support.ts';

interface Ctx {
  database: TestDatabase;
  store: PostgresEventStore;
  lease: Lease;
  target: LiveTarget;
}
const test = suite<Ctx>('projection runner: a batch in one statement (Projection.writeFenced)');

test.before.each(async (ctx) => {
  ctx.database = await createTestDatabase();
  await createAppliedTable(ctx.database.knex);
  ctx.store = new PostgresEventStore(ctx.database.knex, { pollIntervalMs: 10 });
  ctx.lease = (await tryAcquireLease(ctx.database.knex, COUNTER, newLeaseOwner(), 60_000))!;
  ctx.target = new LiveTarget(COUNTER, ctx.lease, START);
});

test.after.each(async (ctx) => {
  await ctx.store.close();
  await ctx.database.drop();
});

/** Appends `tags` as Counted events to one stream; the recorded events. */
async function countedEvents(store: PostgresEventStore, ...tags: string[]): Promise<RecordedEvent[]> {
  await store.appendToStream(
    `counter-${tags[0]}`,
    tags.map((tag) => ({ type: 'Counted', data: { tag } })),
  );
  return (await store.readStream(`counter-${tags[0]}`)).slice(-tags.length);
}

function write(ctx: Ctx, projection: Projection, events: readonly RecordedEvent[]) {
  return writeBatch(ctx.database.knex, projectionContext(ctx.store), projection, ctx.target, events, events.at(-1)!.position);
}

/** What `work` rejected with; fails the test if it resolved. */
async function rejection(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  return assert.unreachable('the batch was written');
}

async function appliedBy(db: Knex): Promise<Record<string, string>> {
  const rows: Array<{ tag: string; by: string }> = await db('test_applied').select('tag', 'by');
  return Object.fromEntries(rows.map((row) => [row.tag, row.by]));
}

test('the first batch creates the checkpoint row in a transaction; the next go in one statement with the checkpoint', async (ctx) => {
  const db = ctx.database.knex;
  const first = await countedEvents(ctx.store, 'a', 'b');
  await write(ctx, fencedCounter(), first);
  const second = await countedEvents(ctx.store, 'c', 'd');
  const sent = await statementsDuring(db, () => write(ctx, fencedCounter(), second));
  assert.is(sent.length, 1, `one statement, no BEGIN or COMMIT: ${sent.map((s) => s.sql).join(' | ')}`);
  assert.equal(await appliedBy(db), { a: 'A', b: 'A', c: 'A1', d: 'A1' });
  assert.equal(await checkpointOf(db), second.at(-1)!.position);
});

test('a checkpoint moved by another writer: the statement writes nothing, and the batch fails as the transaction path says', async (ctx) => {
  const db = ctx.database.knex;
  await write(ctx, fencedCounter(), await countedEvents(ctx.store, 'a'));
  const elsewhere = await countedEvents(ctx.store, 'x');
  // A rebuild's switch, say: the row is somewhere this writer did not leave it.
  await db('projection_checkpoints').where({ name: COUNTER }).update({ commit_position: elsewhere[0]!.position.commit.toString(), prepare_position: elsewhere[0]!.position.prepare.toString() });
  const next = await countedEvents(ctx.store, 'b');
  assert.instance(await rejection(write(ctx, fencedCounter(), next)), CheckpointMoved);
  assert.equal(await appliedBy(db), { a: 'A' });
  assert.equal(await checkpointOf(db), elsewhere[0]!.position);
});

test('a lease taken over: the statement writes nothing, and the old holder gets LeaseLost', async (ctx) => {
  const db = ctx.database.knex;
  const first = await countedEvents(ctx.store, 'a');
  await write(ctx, fencedCounter(), first);
  await db('projection_leases')
    .where({ name: COUNTER })
    .update({ owner: 'intruder', token: db.raw('token + 1') });
  const next = await countedEvents(ctx.store, 'c');
  assert.instance(await rejection(write(ctx, fencedCounter(), next)), LeaseLost);
  assert.equal(await appliedBy(db), { a: 'A' });
  assert.equal(await checkpointOf(db), first[0]!.position);
});

test('a projection that declines a batch (undefined) has it written by handle() in a transaction', async (ctx) => {
  const db = ctx.database.knex;
  const declining: Projection = { ...counter('T'), writeFenced: async () => undefined };
  await write(ctx, declining, await countedEvents(ctx.store, 'a'));
  const next = await countedEvents(ctx.store, 'b');
  await write(ctx, declining, next);
  assert.equal(await appliedBy(db), { a: 'T', b: 'T' });
  assert.equal((await appliedCounts(db)).size, 2);
  assert.equal(await checkpointOf(db), next[0]!.position);
});

test.run();
