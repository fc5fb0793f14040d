import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { handleCommand } from '../../application/command-handler.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import type { Decider } from '../../domain/shared/decider.ts';
import { DomainError } from '../../domain/shared/errors.ts';
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

test('concurrent commands on one stream are retried on conflict and all land', async ({ store }) => {
  await Promise.all(Array.from({ length: 8 }, () => handleCommand(store, 'tally-a', tally, { add: 1, limit: 100 }, { retries: 20 })));
  const result = await handleCommand(store, 'tally-a', tally, { add: 0, limit: 100 });
  assert.is(result.state.total, 8);
  assert.is(result.position, null, 'a command that decides nothing appends nothing');
});

test('the decision is taken again after a conflict: a limit is never overrun', async ({ store }) => {
  const outcomes = await Promise.allSettled(
    Array.from({ length: 6 }, () => handleCommand(store, 'tally-b', tally, { add: 1, limit: 3 }, { retries: 20 })),
  );
  assert.is(outcomes.filter((o) => o.status === 'fulfilled').length, 3);
  const refused = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
  assert.ok(refused.every((o) => o.reason instanceof DomainError && o.reason.message === 'Limite atingido.'));
  assert.is((await store.readStream('tally-b')).length, 3, 'refused commands appended nothing');
});

test('returns the position it appended at and the revision', async ({ store }) => {
  const result = await handleCommand(store, 'tally-c', tally, { add: 2, limit: 10 });
  assert.ok(result.position && result.position.prepare > 0n);
  assert.is(result.revision, 0n);
  assert.is(result.state.total, 2);
});

test.run();
