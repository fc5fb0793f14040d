import bunyan from 'bunyan';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AppContext } from '../../application/context.ts';
import { EventFollower } from '../../application/event-follower.ts';
import { AdvisoryLocks, LockNamespace } from '../../platform/database/advisory-lock.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { appendCounted } from './projections-support.ts';
import { eventually } from '../support/wait.ts';

interface Ctx {
  database: TestDatabase;
  store: PostgresEventStore;
  app: AppContext;
  log: bunyan.RingBuffer;
}
const test = suite<Ctx>('advisory locks: one session for every holder, a lost lock noticed at once');

test.before.each(async (ctx) => {
  ctx.database = await createTestDatabase();
  // Polls far apart: the pool is idle between them, so a pinned connection would show.
  ctx.store = new PostgresEventStore(ctx.database.knex, { pollIntervalMs: 1000 });
  ctx.log = new bunyan.RingBuffer({ limit: 1000 });
  const log = bunyan.createLogger({ name: 'test', streams: [{ type: 'raw', stream: ctx.log, level: 'info' }] });
  ctx.app = { db: ctx.database.knex, store: ctx.store, log, config: { PROCESS_MANAGER_CONCURRENCY: 2 } } as unknown as AppContext;
});

test.after.each(async (ctx) => {
  await ctx.store.close();
  await ctx.database.drop();
});

/** Backends of this database holding process-manager locks, one row per lock. */
async function lockHolders(db: TestDatabase): Promise<number[]> {
  const { rows } = await db.knex.raw(
    `select l.pid from pg_locks l join pg_database d on d.oid = l.database
      where l.locktype = 'advisory' and l.granted and l.classid = ? and d.datname = current_database()`,
    [LockNamespace.processManager],
  );
  return rows.map((row: { pid: number }) => row.pid);
}

const pool = (db: TestDatabase) => (db.knex.client as { pool: { numUsed(): number } }).pool;

function recordingFollower(name: string, seen: string[]): EventFollower {
  return new EventFollower(name, ['Counted'], () => async (event: RecordedEvent) => void seen.push(`${name}:${event.data.tag}`));
}

test('three process managers hold their locks in one session outside the pool', async (ctx) => {
  const seen: string[] = [];
  const followers = ['pm-a', 'pm-b', 'pm-c'].map((name) => recordingFollower(name, seen));
  for (const follower of followers) await follower.start(ctx.app);
  try {
    await eventually(async () => (await lockHolders(ctx.database)).length === 3, { what: 'every follower to hold its lock' });
    assert.is(new Set(await lockHolders(ctx.database)).size, 1, 'one backend holds all three locks');
    // With the followers idle between polls no pool connection stays in use: none is pinned.
    await eventually(() => pool(ctx.database).numUsed() === 0, { what: 'the pool to be idle while the locks are held' });
    await appendCounted(ctx.store, 3);
    await eventually(() => seen.length === 9, { what: 'each follower to react to each event' });
  } finally {
    for (const follower of followers) await follower.stop();
  }
  assert.equal(await lockHolders(ctx.database), [], 'stopping released every lock and the session');
});

test('a dropped lock session stops every holder at once; they take their locks again and go on', async (ctx) => {
  const seen: string[] = [];
  const followers = ['pm-a', 'pm-b'].map((name) => recordingFollower(name, seen));
  for (const follower of followers) await follower.start(ctx.app);
  try {
    await eventually(async () => (await lockHolders(ctx.database)).length === 2, { what: 'both followers to hold their locks' });
    const [holder] = (await lockHolders(ctx.database)) as [number, number];
    const lostLines = () => ctx.log.records.filter((r: { msg: string }) => r.msg === 'process manager lock lost: stopped following').length;
    const killed = Date.now();
    await ctx.database.knex.raw('select pg_terminate_backend(?)', [holder]);
    // "At once": the session's end is an event on its socket, not a poll or a renewal.
    await eventually(() => lostLines() === 2, { timeoutMs: 5000, what: 'both followers to notice the lost lock' });
    const noticedAfter = Date.now() - killed;
    assert.ok(noticedAfter < 5000, `noticed after ${noticedAfter} ms`);
    await eventually(
      async () => {
        const holders = await lockHolders(ctx.database);
        return holders.length === 2 && !holders.includes(holder!);
      },
      { what: 'both locks taken again in a new session' },
    );
    await appendCounted(ctx.store, 2);
    await eventually(() => seen.length >= 4, { what: 'the followers to react again' });
  } finally {
    for (const follower of followers) await follower.stop();
  }
});

test('a lock held in this process is refused to a second holder of the same process', async (ctx) => {
  const first = new AdvisoryLocks(ctx.database.knex);
  const second = new AdvisoryLocks(ctx.database.knex);
  try {
    assert.is(await first.tryLock(LockNamespace.processManager, 'job'), true);
    // Session-level locks are re-entrant: without its own bookkeeping the shared session would say yes.
    assert.is(await second.tryLock(LockNamespace.processManager, 'job'), false);
    await first.close();
    assert.is(await second.tryLock(LockNamespace.processManager, 'job'), true, 'free again once released');
  } finally {
    await first.close();
    await second.close();
  }
  assert.equal(await lockHolders(ctx.database), []);
});

test.run();
