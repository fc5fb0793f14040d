import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { comparePositions, type Position, type RecordedEvent, type Subscription } from '../../platform/eventstore/port.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import { READ_ALL_STATEMENT } from '../../platform/eventstore/postgres-sql.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { eventually, sleep } from '../support/wait.ts';

/**
 * Caught-up subscriptions share one reader of the log (platform/eventstore/postgres-tail.ts), and
 * a handler is told of skipped events at most once per progressIntervalMs.
 */
const test = suite('postgres event store: one reader for every caught-up subscription');
let db: TestDatabase;

test.before(async () => {
  db = await createTestDatabase();
});
test.after(async () => {
  await db.drop();
});

/** Statements that read $all (readAllSql), counted from the moment this is called. */
function countLogReads(): { count: () => number; stop: () => void } {
  let reads = 0;
  const listener = (query: { options?: { name?: string } }) => {
    if (query.options?.name?.startsWith(READ_ALL_STATEMENT)) reads++;
  };
  db.knex.on('query', listener);
  return { count: () => reads, stop: () => void db.knex.off('query', listener) };
}

function follow(store: PostgresEventStore, after: Position, filter: { categories?: string[]; eventTypes?: string[] }, options: { progressIntervalMs?: number } = {}) {
  const events: RecordedEvent[] = [];
  let emptyCalls = 0;
  let checkpoint = after;
  const subscription: Subscription = store.subscribeToAll(
    async (batch, at) => {
      if (batch.length === 0) emptyCalls++;
      events.push(...batch);
      checkpoint = at;
    },
    { after, filter, maxCount: 50, ...options },
  );
  return { events, subscription, emptyCalls: () => emptyCalls, checkpoint: () => checkpoint };
}

const ids = (events: RecordedEvent[]) => events.map((e) => e.data.i);

test('twenty caught-up subscriptions: each gets its own events in order, and an append costs about one read of the log, not twenty', async () => {
  const store = new PostgresEventStore(db.knex, { pollIntervalMs: 1000 });
  const cat = `tail${randomBytes(4).toString('hex')}`;
  const from = await store.headPosition();
  const followers = Array.from({ length: 20 }, (_, k) => follow(store, from, k % 2 ? { categories: [`${cat}${k % 4}`] } : { eventTypes: [`Type${k % 3}`] }));
  const append = async (from: number, to: number) => {
    for (let i = from; i < to; i++) await store.appendToStream(`${cat}${i % 4}-1`, [{ type: `Type${i % 3}`, data: { i } }]);
  };
  const wants = (k: number, i: number) => (k % 2 ? i % 4 === k % 4 : i % 3 === k % 3);
  // Let each reach the end of the log on its own first (that read starts the shared tail): twelve
  // events give every follower one of its own, and when each has its, each is at the tail.
  const warmUp = 12;
  await append(0, warmUp);
  for (const [k, follower] of followers.entries()) {
    await eventually(() => follower.events.length === Array.from({ length: warmUp }, (_, i) => i).filter((i) => wants(k, i)).length, { what: `follower ${k} at the tail` });
  }
  const reads = countLogReads();
  const appends = 60;
  await append(warmUp, warmUp + appends);
  for (const [k, follower] of followers.entries()) {
    const expected = Array.from({ length: warmUp + appends }, (_, i) => i).filter((i) => wants(k, i));
    await eventually(() => follower.events.length === expected.length, { what: `follower ${k} has its events` });
    assert.equal(ids(follower.events), expected, `follower ${k}`);
  }
  reads.stop();
  // One read per append at most, plus the polls while the appends ran; twenty each before.
  assert.ok(reads.count() > 0 && reads.count() <= appends * 2 + 20, `${reads.count()} reads of the log for ${appends} appends`);
  await Promise.all(followers.map((f) => f.subscription.stop()));
  await store.close();
});

test('a subscription further behind than the memory reads the log itself, then joins the tail: every event once, in order', async () => {
  const store = new PostgresEventStore(db.knex, { pollIntervalMs: 20, tailEvents: 10, subscriptionBatchSize: 7 });
  const cat = `behind${randomBytes(4).toString('hex')}`;
  const from = await store.headPosition();
  const live = follow(store, from, { categories: [cat] });
  // The live follower at the end of the log (where it starts the shared tail) before the rest.
  await store.appendToStream(`${cat}-0`, [{ type: 'Seen', data: { i: 0 } }]);
  await eventually(() => live.events.length === 1, { what: 'the live follower at the tail' });
  for (let i = 1; i < 100; i++) await store.appendToStream(`${cat}-${i % 5}`, [{ type: 'Seen', data: { i } }]);
  await eventually(() => live.events.length === 100, { what: 'the live follower has all' });
  const late = follow(store, from, { categories: [cat] });
  const appending = (async () => {
    for (let i = 100; i < 150; i++) await store.appendToStream(`${cat}-${i % 5}`, [{ type: 'Seen', data: { i } }]);
  })();
  await appending;
  const all = Array.from({ length: 150 }, (_, i) => i);
  await eventually(() => live.events.length === 150 && late.events.length === 150, { what: 'both followers have all' });
  assert.equal(ids(live.events), all);
  assert.equal(ids(late.events), all);
  await live.subscription.stop();
  await late.subscription.stop();
  await store.close();
});

test('a handler is told of events its filter skips at most once per progressIntervalMs, and its checkpoint still passes them', async () => {
  const store = new PostgresEventStore(db.knex, { pollIntervalMs: 10 });
  const cat = `skip${randomBytes(4).toString('hex')}`;
  const from = await store.headPosition();
  const follower = follow(store, from, { eventTypes: ['NeverAppended'] }, { progressIntervalMs: 400 });
  const eager = follow(store, from, { eventTypes: ['NeverAppended'] }, { progressIntervalMs: 0 });
  const started = Date.now();
  let last: Position | undefined;
  for (let i = 0; i < 30; i++) {
    last = (await store.appendToStream(`${cat}-1`, [{ type: 'Unwanted', data: { i } }])).position;
    // Fixed pacing: the appends spread over time, which the throttle is measured against.
    await sleep(20);
  }
  await eventually(() => comparePositions(follower.checkpoint(), last!) >= 0, { what: 'the throttled checkpoint passes the last event' });
  const elapsed = Date.now() - started;
  assert.ok(follower.emptyCalls() <= Math.ceil(elapsed / 400) + 1, `${follower.emptyCalls()} calls in ${elapsed} ms`);
  await eventually(() => comparePositions(eager.checkpoint(), last!) >= 0, { what: 'the eager checkpoint passes the last event' });
  assert.ok(eager.emptyCalls() > follower.emptyCalls(), `eager ${eager.emptyCalls()}, throttled ${follower.emptyCalls()}`);
  assert.equal(follower.events, []);
  await follower.subscription.stop();
  await eager.subscription.stop();
  await store.close();
});

test.run();
