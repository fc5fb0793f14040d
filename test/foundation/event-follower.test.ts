import bunyan from 'bunyan';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AppContext } from '../../application/context.ts';
import { EventFollower, processCheckpoint } from '../../application/event-follower.ts';
import { CompletionWatermark } from '../../application/follower-lanes.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import { comparePositions, type Position, type RecordedEvent } from '../../platform/eventstore/port.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { stopsWithin } from '../support/stop.ts';
import { appendCounted, checkpointOf } from './projections-support.ts';
import { eventually } from '../support/wait.ts';

const log = bunyan.createLogger({ name: 'test', level: (process.env.TEST_LOG as 'fatal') ?? 'fatal' });
const NAME = 'test-follower';

interface Ctx {
  database: TestDatabase;
  store: PostgresEventStore;
  app: AppContext;
}
const test = suite<Ctx>('event follower: concurrent across streams, in order within one, honest checkpoint');

test.before.each(async (ctx) => {
  ctx.database = await createTestDatabase();
  ctx.store = new PostgresEventStore(ctx.database.knex, { pollIntervalMs: 10 });
  ctx.app = { db: ctx.database.knex, store: ctx.store, log, config: { PROCESS_MANAGER_CONCURRENCY: 4 } } as unknown as AppContext;
});

test.after.each(async (ctx) => {
  await ctx.store.close();
  await ctx.database.drop();
});

const p = (commit: number): Position => ({ commit: BigInt(commit), prepare: BigInt(commit) });

test('the watermark only passes a position once everything before it finished', () => {
  const watermark = new CompletionWatermark();
  const [a, b, c] = [watermark.begin(p(1)), watermark.begin(p(2)), watermark.begin(p(3))];
  assert.is(watermark.finish(c), false, 'the last finishing first moves nothing');
  assert.is(watermark.safe, undefined);
  assert.is(watermark.finish(a), true);
  assert.equal(watermark.safe, p(1));
  assert.is(watermark.pass(p(4)), false, 'a page checkpoint waits for b too');
  assert.is(watermark.finish(b), true);
  assert.equal(watermark.safe, p(4));
});

test('streams run side by side, each stream in order; the checkpoint never passes an unfinished event', async ({ database, store, app }) => {
  const seen: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const follower = new EventFollower(
    NAME,
    ['Counted'],
    () => async (event: RecordedEvent) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // Counted-2 (stream counter-2) hangs until released: the other streams go on meanwhile.
      if (event.data.tag === 'Counted-2') await held;
      else await new Promise((resolve) => setTimeout(resolve, 5));
      seen.push(`${event.streamName}:${event.data.tag}`);
      inFlight--;
    },
    { concurrent: true },
  );
  // 30 events over streams counter-0 .. counter-4 (round robin).
  const positions = await appendCounted(store, 30);
  await follower.start(app);
  await eventually(() => seen.length === 24, { what: 'every event of the four other streams' });
  assert.ok(maxInFlight > 1, `ran side by side (at most ${maxInFlight} at once)`);
  assert.ok(!seen.some((s) => s.startsWith('counter-2:')), 'counter-2 waits behind its held event');
  const saved = await checkpointOf(database.knex, processCheckpoint(NAME));
  assert.ok(saved === undefined || comparePositions(saved, positions[2]!) < 0, 'the checkpoint stays before the held event');
  release();
  await eventually(() => seen.length === 30, { what: 'every event' });
  for (let stream = 0; stream < 5; stream++) {
    const tags = seen.filter((s) => s.startsWith(`counter-${stream}:`)).map((s) => Number(s.split('-').at(-1)));
    assert.equal(
      tags,
      [...tags].sort((a, b) => a - b),
      `counter-${stream} in order`,
    );
  }
  await eventually(async () => comparePositions((await checkpointOf(database.knex, processCheckpoint(NAME)))!, positions[29]!) >= 0, { what: 'the checkpoint at the end' });
  await follower.stop();
});

test('stopped while an event is being retried: the checkpoint stays before it, the next holder runs it and skips nothing', async ({ database, store, app }) => {
  const runs = new Map<string, number>();
  let block = true;
  const reaction = () => async (event: RecordedEvent) => {
    const tag = String(event.data.tag);
    if (tag === 'Counted-7' && block) throw new Error('not now');
    runs.set(tag, (runs.get(tag) ?? 0) + 1);
  };
  const positions = await appendCounted(store, 20);
  const first = new EventFollower(NAME, ['Counted'], reaction, { concurrent: true });
  await first.start(app);
  // Counted-7 is on counter-2, whose later events (12, 17) wait behind it.
  await eventually(() => runs.size === 17, { what: 'every event of the other streams' });
  await first.stop();
  const saved = await checkpointOf(database.knex, processCheckpoint(NAME));
  assert.ok(saved === undefined || comparePositions(saved, positions[7]!) < 0, 'the checkpoint stays before Counted-7');
  block = false;
  const second = new EventFollower(NAME, ['Counted'], reaction, { concurrent: true });
  await second.start(app);
  await eventually(() => runs.size === 20, { what: 'Counted-7 and the events behind it, run by the next holder' });
  await second.stop();
  assert.equal(
    [...Array(20).keys()].filter((i) => !runs.has(`Counted-${i}`)),
    [],
    'nothing skipped',
  );
});

test('stopped while it is still taking its lock and reading its checkpoint: the stop ends, nothing is left following', async ({ app }) => {
  const follower = new EventFollower(NAME, ['Counted'], () => async () => undefined);
  await follower.start(app);
  // SIGTERM right after start-up: the follower's first round is between its awaits, and has not
  // subscribed yet when stop() looks for its subscription.
  assert.ok(await stopsWithin(follower, 5000), 'stop() still waiting after 5 s');
});

test.run();
