/**
 * The behaviour every EventStore adapter must have (EventStoreDB's semantics). Each adapter's test
 * file calls eventStoreContract with a factory; the suite shares one store across its tests, so
 * each test writes to categories and event types of its own and reads from the head it found.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ConcurrencyError,
  comparePositions,
  positionToString,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type Position,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../../platform/eventstore/port.ts';
import { eventually, sleep } from '../support/wait.ts';

function unique(prefix: string): string {
  return `${prefix}${randomBytes(5).toString('hex')}`;
}

function event(type: string, data: Record<string, unknown> = {}): EventToAppend {
  return { type, data };
}

function atOrAfter(a: Position, b: Position): boolean {
  return comparePositions(a, b) >= 0;
}

function assertStrictlyIncreasing(events: readonly RecordedEvent[], what: string): void {
  for (let i = 1; i < events.length; i++) {
    if (comparePositions(events[i - 1]!.position, events[i]!.position) >= 0) {
      assert.unreachable(`${what}: position ${positionToString(events[i]!.position)} at index ${i} does not follow ` + positionToString(events[i - 1]!.position));
    }
  }
}

async function expectConflict(promise: Promise<unknown>, expected: ExpectedRevision, actual: bigint | 'no_stream'): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, ConcurrencyError);
    assert.is((error as ConcurrencyError).expected, expected);
    assert.is((error as ConcurrencyError).actual, actual);
    return;
  }
  assert.unreachable(`expected a ConcurrencyError for expected revision ${String(expected)}`);
}

/** A subscription that records what it is given and checks the handler's promises as it goes. */
function record(store: EventStore, options: SubscribeOptions & { onBatch?: (events: RecordedEvent[]) => void } = {}) {
  const events: RecordedEvent[] = [];
  const checkpoints: Position[] = [];
  const violations: string[] = [];
  let last: Position | undefined = options.after;
  const subscription: Subscription = store.subscribeToAll(async (batch, checkpoint) => {
    if (batch.length === 0 && last && comparePositions(checkpoint, last) <= 0) {
      violations.push(`called with no events and a checkpoint that did not advance (${positionToString(checkpoint)})`);
    }
    const lastOfBatch = batch[batch.length - 1];
    if (lastOfBatch && comparePositions(checkpoint, lastOfBatch.position) < 0) {
      violations.push(`checkpoint ${positionToString(checkpoint)} behind its batch`);
    }
    if (last && batch[0] && comparePositions(batch[0].position, last) <= 0) {
      violations.push(`event at ${positionToString(batch[0].position)} not after checkpoint ${positionToString(last)}`);
    }
    events.push(...batch);
    checkpoints.push(checkpoint);
    last = checkpoint;
    options.onBatch?.(batch);
  }, options);
  return {
    events,
    checkpoints,
    subscription,
    lastCheckpoint: () => last,
    /**
     * Appends a last event to `stream` (one the filter takes) and waits for it. Delivery is in log
     * order, each event once, so when it has arrived nothing appended before it can still come:
     * the positive signal for "no duplicate, nothing more", where a pause could only hope. The
     * events delivered before it.
     */
    async untilSentinel(stream: string): Promise<RecordedEvent[]> {
      const { position } = await store.appendToStream(stream, [event('Sentinel')]);
      await eventually(() => events.some((e) => comparePositions(e.position, position) === 0), { what: `the sentinel in ${stream} delivered` });
      return events.filter((e) => comparePositions(e.position, position) < 0);
    },
    assertSound(what: string) {
      assert.equal(violations, [], `${what}: handler contract`);
      assertStrictlyIncreasing(events, what);
      assert.is(new Set(events.map((e) => e.id)).size, events.length, `${what}: no event twice`);
    },
  };
}

export function eventStoreContract(name: string, makeStore: () => Promise<{ store: EventStore; cleanup: () => Promise<void> }>): void {
  const test = suite(`event store contract (${name})`);
  let store: EventStore;
  let cleanup: (() => Promise<void>) | undefined;

  test.before(async () => {
    ({ store, cleanup } = await makeStore());
  });
  test.after(async () => {
    await cleanup?.();
  });

  test('appends and reads a stream back', async () => {
    const stream = `${unique('acct')}-1`;
    const id = randomUUID();
    const first = await store.appendToStream(stream, [{ type: 'Opened', data: { owner: 'Zoë', limits: [1, 2.5], nested: { ok: true } }, metadata: { by: 'u1' }, id }]);
    assert.is(first.nextExpectedRevision, 0n);
    const second = await store.appendToStream(stream, [event('Deposited', { amount: 10 }), event('Deposited', { amount: 5 })]);
    assert.is(second.nextExpectedRevision, 2n);
    assert.ok(comparePositions(second.position, first.position) > 0, 'positions grow');

    const read = await store.readStream(stream);
    assert.equal(
      read.map((e) => e.revision),
      [0n, 1n, 2n],
    );
    assert.equal(
      read.map((e) => e.type),
      ['Opened', 'Deposited', 'Deposited'],
    );
    assert.is(read[0]!.id, id);
    assert.is(read[0]!.streamName, stream);
    assert.equal(read[0]!.data, { owner: 'Zoë', limits: [1, 2.5], nested: { ok: true } });
    assert.equal(read[0]!.metadata, { by: 'u1' });
    assert.equal(read[1]!.metadata, {});
    assert.ok(read[0]!.createdAt instanceof Date && Math.abs(read[0]!.createdAt.getTime() - Date.now()) < 60_000);
    assert.equal(read[0]!.position, first.position);
    assert.equal(read[2]!.position, second.position, 'append returns the position of its last event');
    assertStrictlyIncreasing(read, 'readStream');

    assert.equal(
      (await store.readStream(stream, { fromRevision: 1n })).map((e) => e.revision),
      [1n, 2n],
    );
    assert.equal(
      (await store.readStream(stream, { maxCount: 2 })).map((e) => e.revision),
      [0n, 1n],
    );
    assert.equal(
      (await store.readStream(stream, { fromRevision: 1n, maxCount: 1 })).map((e) => e.revision),
      [1n],
    );
  });

  test('reading a missing stream gives an empty list', async () => {
    assert.equal(await store.readStream(`${unique('missing')}-1`), []);
  });

  test('expected revision: no_stream, stream_exists, exact and any', async () => {
    const cat = unique('rev');
    const s = `${cat}-1`;
    await expectConflict(store.appendToStream(s, [event('A')], { expectedRevision: 'stream_exists' }), 'stream_exists', 'no_stream');
    await expectConflict(store.appendToStream(s, [event('A')], { expectedRevision: 0n }), 0n, 'no_stream');
    assert.is((await store.appendToStream(s, [event('A')], { expectedRevision: 'no_stream' })).nextExpectedRevision, 0n);
    await expectConflict(store.appendToStream(s, [event('A')], { expectedRevision: 'no_stream' }), 'no_stream', 0n);
    assert.is((await store.appendToStream(s, [event('A')], { expectedRevision: 0n })).nextExpectedRevision, 1n);
    await expectConflict(store.appendToStream(s, [event('A')], { expectedRevision: 0n }), 0n, 1n);
    await expectConflict(store.appendToStream(s, [event('A')], { expectedRevision: 5n }), 5n, 1n);
    assert.is((await store.appendToStream(s, [event('A')], { expectedRevision: 'stream_exists' })).nextExpectedRevision, 2n);
    assert.is((await store.appendToStream(s, [event('A')], { expectedRevision: 'any' })).nextExpectedRevision, 3n);
    assert.is((await store.appendToStream(s, [event('A')])).nextExpectedRevision, 4n, 'any is the default');
    assert.is((await store.appendToStream(`${cat}-2`, [event('A')], { expectedRevision: 'any' })).nextExpectedRevision, 0n);
    assert.is((await store.readStream(s)).length, 5, 'failed appends wrote nothing');
  });

  test('concurrent writers with the same expectation: one wins, the others get ConcurrencyError', async () => {
    const cat = unique('race');
    for (const [expected, setup] of [
      ['no_stream', 0],
      [0n, 1],
      ['stream_exists', 1],
    ] as const) {
      const s = `${cat}-${String(expected)}`;
      if (setup) await store.appendToStream(s, [event('Seed')], { expectedRevision: 'no_stream' });
      const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store.appendToStream(s, [event('Raced', { i })], { expectedRevision: expected })));
      const won = results.filter((r) => r.status === 'fulfilled').length;
      const lost = results.filter((r) => r.status === 'rejected');
      for (const r of lost) assert.instance((r as PromiseRejectedResult).reason, ConcurrencyError);
      if (expected === 'stream_exists') assert.is(won, 8, 'stream_exists does not exclude other writers');
      else assert.is(won, 1, `exactly one writer wins with ${String(expected)}`);
      const revisions = (await store.readStream(s)).map((e) => e.revision);
      assert.equal(
        revisions,
        revisions.map((_, i) => BigInt(i)),
        'revisions stay contiguous',
      );
    }
  });

  test('a multi-event append is atomic', async () => {
    const cat = unique('atomic');
    const type = unique('Batch');
    const from = await store.headPosition();
    // Concurrent multi-event appends: each one's events stay together in the global order.
    await Promise.all(
      Array.from({ length: 6 }, (_, w) =>
        (async () => {
          for (let i = 0; i < 5; i++) {
            await store.appendToStream(
              `${cat}-${w}`,
              [0, 1, 2].map((k) => event(type, { w, i, k })),
            );
          }
        })(),
      ),
    );
    let all: RecordedEvent[] = [];
    await eventually(
      async () => {
        all = (await store.readAll({ after: from, filter: { categories: [cat] } })).events;
        return all.length === 90;
      },
      { what: 'all batches readable' },
    );
    for (let j = 0; j < all.length; j += 3) {
      const group = all.slice(j, j + 3);
      assert.equal(
        group.map((e) => e.data.k),
        [0, 1, 2],
        'an append is contiguous in $all',
      );
      assert.ok(group.every((e) => e.streamName === group[0]!.streamName && e.data.i === group[0]!.data.i));
    }
    assertStrictlyIncreasing(all, 'readAll');

    const s = `${cat}-0`;
    await expectConflict(store.appendToStream(s, [event(type), event(type), event(type)], { expectedRevision: 3n }), 3n, 14n);
    assert.is((await store.readStream(s)).length, 15, 'a rejected multi-event append writes none of its events');
  });

  test('readAll filters by event type and by category, and its checkpoint passes what it skips', async () => {
    const [catA, catB] = [unique('fa'), unique('fb')];
    const [wanted, other] = [unique('Wanted'), unique('Other')];
    const from = await store.headPosition();
    await store.appendToStream(`${catA}-1`, [event(wanted, { n: 1 }), event(other, { n: 2 })]);
    await store.appendToStream(`${catB}-1`, [event(wanted, { n: 3 }), event(other, { n: 4 })]);
    const last = await store.appendToStream(`${catB}-2`, [event(other, { n: 5 })]);

    let byType = await store.readAll({ after: from, filter: { eventTypes: [wanted] } });
    await eventually(
      async () => {
        byType = await store.readAll({ after: from, filter: { eventTypes: [wanted] } });
        return atOrAfter(byType.checkpoint, last.position);
      },
      { what: 'type filter catches up' },
    );
    assert.equal(
      byType.events.map((e) => e.data.n),
      [1, 3],
    );
    assert.ok(atOrAfter(byType.checkpoint, byType.events[1]!.position));

    const byCategory = await store.readAll({ after: from, filter: { categories: [catB] } });
    assert.equal(
      byCategory.events.map((e) => e.data.n),
      [3, 4, 5],
    );
    assert.ok(byCategory.events.every((e) => e.streamName.startsWith(`${catB}-`)));

    const both = await store.readAll({ after: from, filter: { categories: [catA, catB] } });
    assert.equal(
      both.events.map((e) => e.data.n),
      [1, 2, 3, 4, 5],
    );
    assertStrictlyIncreasing(both.events, 'readAll by categories');

    // Nothing matches after the last wanted event, yet the checkpoint moves past the others.
    const skipping = await store.readAll({ after: byType.events[1]!.position, filter: { eventTypes: [wanted] } });
    assert.equal(skipping.events, []);
    assert.ok(atOrAfter(skipping.checkpoint, last.position), 'checkpoint advanced past non-matching events');

    // Paging: pages chain without gaps or repeats; a page may hold fewer than maxCount events
    // while more follow, so the reader goes on until its checkpoint passes what it waits for.
    const paged: RecordedEvent[] = [];
    let after = from;
    for (let i = 0; i < 100 && comparePositions(after, last.position) < 0; i++) {
      const page = await store.readAll({ after, filter: { categories: [catA, catB] }, maxCount: 2 });
      assert.ok(page.events.length <= 2, 'maxCount is a maximum');
      const lastOfPage = page.events[page.events.length - 1];
      if (lastOfPage) assert.ok(atOrAfter(page.checkpoint, lastOfPage.position));
      paged.push(...page.events);
      after = page.checkpoint;
    }
    assert.equal(
      paged.map((e) => e.data.n),
      [1, 2, 3, 4, 5],
    );
    assert.ok(atOrAfter(await store.headPosition(), last.position), 'head is at or after the last append');
  });

  test('a subscription delivers history, then live events, each once and in order', async () => {
    const cat = unique('sub');
    const from = await store.headPosition();
    for (let i = 0; i < 25; i++) await store.appendToStream(`${cat}-${i % 3}`, [event('Hist', { i })]);
    const rec = record(store, { after: from, filter: { categories: [cat] }, maxCount: 10 });
    await eventually(() => rec.events.length === 25, { what: 'history delivered' });
    for (let i = 25; i < 40; i++) await store.appendToStream(`${cat}-${i % 3}`, [event('Live', { i })]);
    await eventually(() => rec.events.length === 40, { what: 'live events delivered' });
    const delivered = await rec.untilSentinel(`${cat}-0`);
    await rec.subscription.stop();
    assert.equal(
      delivered.map((e) => e.data.i),
      Array.from({ length: 40 }, (_, i) => i),
    );
    rec.assertSound('subscription');
  });

  test('a filtered subscription moves its checkpoint past events it does not want', async () => {
    const cat = unique('skip');
    const from = await store.headPosition();
    const rec = record(store, { after: from, filter: { eventTypes: [unique('Never')] } });
    const appended = await store.appendToStream(`${cat}-1`, [event('Unwanted')]);
    await eventually(
      () => {
        const last = rec.lastCheckpoint();
        return last !== undefined && atOrAfter(last, appended.position);
      },
      { what: 'checkpoint passes the unwanted event' },
    );
    await rec.subscription.stop();
    assert.equal(rec.events, []);
    rec.assertSound('filtered subscription');
  });

  test('4 concurrent writers x 500 events: a live subscriber sees every event once, in order', async () => {
    const cat = unique('conc');
    const from = await store.headPosition();
    const rec = record(store, { after: from, filter: { categories: [cat] } });
    await Promise.all(
      [0, 1, 2, 3].map(async (w) => {
        let revision: ExpectedRevision = 'no_stream';
        for (let i = 0; i < 500; i++) {
          // Two streams per writer, so both exact revisions and 'any' are exercised.
          if (i % 2 === 0) {
            revision = (await store.appendToStream(`${cat}-${w}a`, [event('Tick', { w, i })], { expectedRevision: revision })).nextExpectedRevision;
          } else {
            await store.appendToStream(`${cat}-${w}b`, [event('Tick', { w, i })], { expectedRevision: 'any' });
          }
        }
      }),
    );
    await eventually(() => rec.events.length >= 2000, { timeoutMs: 60_000, what: 'all 2000 events delivered' });
    const delivered = await rec.untilSentinel(`${cat}-sentinel`);
    await rec.subscription.stop();
    assert.is(delivered.length, 2000);
    rec.assertSound('concurrent subscription');
    for (const w of [0, 1, 2, 3]) {
      const mine = delivered.filter((e) => e.data.w === w).map((e) => e.data.i);
      assert.equal(
        mine,
        Array.from({ length: 500 }, (_, i) => i),
        `writer ${w}'s events in its order`,
      );
    }
    const replay = await store.readAll({ after: from, filter: { categories: [cat] } });
    assert.equal(
      replay.events.map((e) => e.id),
      rec.events.map((e) => e.id),
      'the live order is the replay order',
    );
  });

  test('a subscription resumes from its last checkpoint after a restart: no duplicates, no gaps', async () => {
    const cat = unique('resume');
    const from = await store.headPosition();
    for (let i = 0; i < 50; i++) await store.appendToStream(`${cat}-${i % 4}`, [event('E', { i })]);

    const seen: RecordedEvent[] = [];
    let checkpoint = from;
    const first = record(store, {
      after: from,
      filter: { categories: [cat] },
      maxCount: 7,
      onBatch: (batch) => {
        seen.push(...batch);
        if (seen.length >= 21) void first.subscription.stop();
      },
    });
    const writing = (async () => {
      for (let i = 50; i < 80; i++) await store.appendToStream(`${cat}-${i % 4}`, [event('E', { i })]);
    })();
    await first.subscription.done;
    checkpoint = first.lastCheckpoint() ?? from;
    first.assertSound('before the restart');
    await writing;

    const second = record(store, { after: checkpoint, filter: { categories: [cat] }, maxCount: 7 });
    await eventually(() => seen.length + second.events.length >= 80, { what: 'the rest delivered' });
    const rest = await second.untilSentinel(`${cat}-0`);
    await second.subscription.stop();
    second.assertSound('after the restart');
    const all = [...seen, ...rest];
    assert.equal(
      all.map((e) => e.data.i).sort((a, b) => Number(a) - Number(b)),
      Array.from({ length: 80 }, (_, i) => i),
    );
    assertStrictlyIncreasing(all, 'across the restart');
  });

  test('a throwing handler stops the subscription and reports the error; a restart redelivers', async () => {
    const cat = unique('fail');
    const from = await store.headPosition();
    await store.appendToStream(`${cat}-1`, [event('E', { i: 0 }), event('E', { i: 1 })]);
    let reported: unknown;
    let calls = 0;
    const failing = store.subscribeToAll(
      async () => {
        calls++;
        throw new Error('boom');
      },
      { after: from, filter: { categories: [cat] }, onError: (error) => (reported = error) },
    );
    await failing.done;
    assert.is(calls, 1);
    assert.is((reported as Error)?.message, 'boom');
    const again = record(store, { after: from, filter: { categories: [cat] } });
    await eventually(() => again.events.length === 2, { what: 'redelivered' });
    await again.subscription.stop();
  });

  test('positionBefore a time: reading after it starts at the first event stored at or after that time', async () => {
    const cat = unique('seek');
    const first = await store.appendToStream(`${cat}-1`, [event('SeekA')]);
    // Fixed: far enough apart that the two events' times differ at millisecond precision on any server (wall-clock times are under test).
    await sleep(20);
    await store.appendToStream(`${cat}-2`, [event('SeekB')]);
    const [a] = await store.readStream(`${cat}-1`);
    const [b] = await store.readStream(`${cat}-2`);
    assert.ok(b!.createdAt > a!.createdAt, 'the second event is stored later');
    const ours = async (after: Position) => (await store.readAll({ after, filter: { categories: [cat] } })).events.map((e) => e.type);

    assert.equal(await ours(await store.positionBefore(b!.createdAt)), ['SeekB']);
    const fromFirst = await store.positionBefore(a!.createdAt);
    assert.ok(comparePositions(fromFirst, first.position) < 0);
    assert.equal(await ours(fromFirst), ['SeekA', 'SeekB']);
    // Nothing that recent: the head, after which none of ours follows.
    const later = await store.positionBefore(new Date(b!.createdAt.getTime() + 60_000));
    assert.ok(atOrAfter(later, (await store.readStream(`${cat}-2`))[0]!.position));
    assert.equal(await ours(later), []);
  });

  test('ping and headPosition answer', async () => {
    await store.ping();
    const appended = await store.appendToStream(`${unique('head')}-1`, [event('E')]);
    assert.ok(atOrAfter(await store.headPosition(), appended.position));
  });

  test.run();
}
