import { randomBytes } from 'node:crypto';
import pg from 'pg';
import * as assert from 'uvu/assert';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import { databaseSuite } from '../support/db.ts';
import { eventually, sleep } from '../support/wait.ts';

const test = databaseSuite('postgres event store: many readers, appends and other writes at once');
/**
 * Every reader raises the store's known horizon while the others read below the one they took:
 * twenty subscriptions starting together, filtered and not, with pages of 1 to 1000, while four
 * writers append and three transactions that never append come and go (they move the horizon
 * without adding events). Each must see every event once.
 */
test('twenty subscriptions starting together see every event once, while appends and other writes run', async ({ db }) => {
  const store = new PostgresEventStore(db.knex, { pollIntervalMs: 5 });
  const cat = `stress${randomBytes(3).toString('hex')}`;
  let stop = false;
  const appended: string[] = [];
  const writers = Array.from({ length: 4 }, async (_, w) => {
    for (let i = 0; !stop; i++) {
      await store.appendToStream(`${cat}${w % 2}-${w}`, [{ type: `T${i % 3}`, data: { w, i } }]);
      appended.push(`${w}:${i}`);
    }
  });
  await db.knex.raw('create table noise (x int)');
  const others = Array.from({ length: 3 }, async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    while (!stop) {
      await client.query('begin');
      await client.query('insert into noise values (1)');
      // Fixed jitter: transactions of random length around the appends are the stress.
      await sleep(Math.random() * 10);
      await client.query('commit');
    }
    await client.end();
  });
  // Fixed: readers join a log already being written (the stress's shape, not a wait for anything).
  await sleep(500);
  const readers = Array.from({ length: 20 }, (_, k) => {
    const seen: RecordedEvent[] = [];
    const filter = [undefined, { categories: [`${cat}${k % 2}`] }, { eventTypes: [`T${k % 3}`] }][k % 3];
    const subscription = store.subscribeToAll(async (batch) => void seen.push(...batch), { filter, maxCount: [1, 3, 50, 1000][k % 4] });
    const wanted = (e: RecordedEvent) =>
      e.streamName.startsWith(cat) && (!filter?.categories || filter.categories.some((c) => e.streamName.startsWith(`${c}-`))) && (!filter?.eventTypes || filter.eventTypes.includes(e.type));
    return { seen, subscription, wanted };
  });
  // Fixed: how long the stress runs.
  await sleep(3000);
  stop = true;
  await Promise.all([...writers, ...others]);

  const all = (await store.readAll({ filter: { categories: [`${cat}0`, `${cat}1`] } })).events;
  assert.is(all.length, appended.length);
  for (const [k, reader] of readers.entries()) {
    const expected = all.filter(reader.wanted).map((e) => e.id);
    await eventually(() => reader.seen.filter(reader.wanted).length >= expected.length, { timeoutMs: 30_000, what: `reader ${k} to see its ${expected.length} events` });
    await reader.subscription.stop();
    assert.equal(
      reader.seen.filter(reader.wanted).map((e) => e.id),
      expected,
      `reader ${k}`,
    );
  }
  await store.close();
});

test.run();
