import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { conflictBackoffMs, handleCommand } from '../../application/command-handler.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import type { Decider } from '../../domain/shared/decider.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';

type Event = { type: 'Added'; data: { amount: number } };
type Command = { add: number; limit: number };
const tally: Decider<Command, Event, { total: number }> = {
  initialState: () => ({ total: 0 }),
  evolve: (state, event) => ({ total: state.total + event.data.amount }),
  decide: (command, state) => {
    if (state.total + command.add > command.limit) throw new DomainError('conflict', 'Limite atingido.');
    return command.add === 0 ? [] : [{ type: 'Added', data: { amount: command.add } }];
  },
};

const test = suite<{ database: TestDatabase; store: PostgresEventStore }>('command handler');
test.before(async (ctx) => {
  ctx.database = await createTestDatabase();
  ctx.store = new PostgresEventStore(ctx.database.knex);
});
test.after(async (ctx) => {
  await ctx.store.close();
  await ctx.database.drop();
});

/*
 * A writer's append conflicts only when another writer appended since its read, and after the
 * conflict it reads again: each of its conflicts is paid for by a distinct success of another
 * writer. With n writers, n - 1 retries therefore always suffice, however the machine schedules them.
 */
test('concurrent commands on one stream are retried on conflict and all land', async ({ store }) => {
  const writers = 8;
  await Promise.all(Array.from({ length: writers }, () => handleCommand(store, 'tally-a', tally, { add: 1, limit: 100 }, { retries: writers - 1 })));
  const result = await handleCommand(store, 'tally-a', tally, { add: 0, limit: 100 });
  assert.is(result.state.total, writers);
  assert.is(result.position, null, 'a command that decides nothing appends nothing');
});

test('the decision is taken again after a conflict: a limit is never overrun', async ({ store }) => {
  const writers = 6;
  const outcomes = await Promise.allSettled(Array.from({ length: writers }, () => handleCommand(store, 'tally-b', tally, { add: 1, limit: 3 }, { retries: writers - 1 })));
  assert.is(outcomes.filter((o) => o.status === 'fulfilled').length, 3);
  const refused = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
  assert.ok(refused.every((o) => o.reason instanceof DomainError && o.reason.message === 'Limite atingido.'));
  assert.is((await store.readStream('tally-b')).length, 3, 'refused commands appended nothing');
});

/** Another writer appends to the stream right after every read: every append of ours conflicts. */
function alwaysContended(store: EventStore): EventStore & { reads: number } {
  const contended = Object.create(store) as EventStore & { reads: number };
  contended.reads = 0;
  contended.readStream = async (name, options) => {
    const events = await store.readStream(name, options);
    contended.reads++;
    await store.appendToStream(name, [{ type: 'Added', data: { amount: 0 } }], { expectedRevision: 'any' });
    return events;
  };
  return contended;
}

test('a stream contended past every retry is a conflict with a clear message, after backing off', async ({ store }) => {
  const contended = alwaysContended(store);
  const started = Date.now();
  const error = await handleCommand(contended, 'tally-d', tally, { add: 1, limit: 10 }, { retries: 2, random: () => 0.999 }).catch((e: unknown) => e);
  assert.instance(error, DomainError);
  assert.is((error as DomainError).kind, 'conflict');
  assert.is((error as DomainError).message, Messages.concurrentUpdate);
  assert.is(contended.reads, 3, 'the first try and two retries');
  assert.ok(Date.now() - started >= conflictBackoffMs(0, () => 0.999) + conflictBackoffMs(1, () => 0.999), 'waited between tries');
});

test('the backoff grows exponentially up to a cap, jittered below it', () => {
  const top = (attempt: number) => conflictBackoffMs(attempt, () => 0.999999);
  assert.ok(top(1) > top(0) && top(2) > top(1), 'grows');
  assert.is(top(30), top(40), 'capped');
  assert.is(
    conflictBackoffMs(5, () => 0),
    0,
    'jitter reaches down to no wait',
  );
});

test('returns the position it appended at and the revision', async ({ store }) => {
  const result = await handleCommand(store, 'tally-c', tally, { add: 2, limit: 10 });
  assert.ok(result.position && result.position.prepare > 0n);
  assert.is(result.revision, 0n);
  assert.is(result.state.total, 2);
});

test.run();
