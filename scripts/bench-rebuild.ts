/**
 * `npm run bench:rebuild [-- [--quick] --events 1000000 --rounds 6 --rate 200 --lag-seconds 60]`: how fast a
 * projection is rebuilt, and how far behind the log a live projection runs under steady appends.
 *
 *   rebuild:  `npm run projections:rebuild -- collection-trail` (as an operator runs it, in its
 *             own process) over a log of --events trail entries, events/s as the command itself
 *             reports them (its start-up excluded), against the raw read of the same events:
 *             store.readAll with the rebuild's own filter and page size, applying nothing. Paired
 *             rounds in rotated order (scripts/bench-method.ts). Target: rebuild >= 0.5x the read.
 *   lag:      the service as `npm start` runs it, caught up with that log, then --rate events/s
 *             appended for --lag-seconds; each event's lag is from its append's return to the
 *             first look (every 10 ms) at the projection's checkpoint that covers it. Printed
 *             (p50, p99, max): the issue sets no target.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectionStream } from '../domain/collection/events.ts';
import { comparePositions, START, type Position } from '../platform/eventstore/port.ts';
import { readCheckpoints } from '../platform/projections/checkpoints.ts';
import { COLLECTION_TRAIL_PROJECTION, collectionTrailProjection } from '../projections/collection/trail-projection.ts';
import { benchHeader, disturbedBaseline, loadNow, pairedRounds, ratioInterval, runBench, verdict } from './bench-method.ts';
import { collectionEvents, collectionIdOf, seedTrails } from './bench-seed.ts';
import { benchDatabase, benchFlags, npmRun, phase, projectionsSettled, startServiceProcess } from './bench-service.ts';

const flags = benchFlags({
  events: { full: '1000000', quick: '20000' },
  rounds: { full: '6', quick: '5' },
  rate: { full: '200', quick: '50' },
  'lag-seconds': { full: '60', quick: '5' },
});
const EVENTS = Number(flags.events);
const ROUNDS = Number(flags.rounds);
const RATE = Number(flags.rate);
const LAG_SECONDS = Number(flags['lag-seconds']);
const PER_COLLECTION = 1000;
const PAGE = 1000;
const TARGET = { rebuildVsRead: 0.5 };

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

await runBench(async () => {
  console.log(benchHeader('bench:rebuild'));
  const { database, store, cpu } = await benchDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'credit-bench-rebuild-'));
  try {
    const organizationId = 'e'.repeat(24);
    const seeded = performance.now();
    await seedTrails(store, [organizationId], EVENTS, PER_COLLECTION, (done) => process.stderr.write(`seeded ${done}/${EVENTS}\n`));
    console.log(`log: ${EVENTS} trail entries in ${Math.ceil(EVENTS / PER_COLLECTION)} collections, appended in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
    await database.knex.raw('vacuum analyze');
    const pgCpu = await cpu(process.pid);

    // The command as shipped; its own line "<name>: N events in S s" times the replay and the switch, not node's start-up.
    const rebuild = async (): Promise<number> => {
      const output = await npmRun('projections:rebuild', [COLLECTION_TRAIL_PROJECTION], database, dataDir);
      // "<name>: <events> events in <seconds> s"
      const words = output
        .split('\n')
        .find((l) => l.startsWith(`${COLLECTION_TRAIL_PROJECTION}: `))
        ?.split(' ');
      if (!words) throw new Error(`projections:rebuild printed no rate: ${output}`);
      return Number(words[1]) / Number(words[4]);
    };
    const read = async (): Promise<number> => {
      const started = performance.now();
      let after: Position = START;
      let total = 0;
      for (;;) {
        const batch = await store.readAll({ after, filter: { eventTypes: collectionTrailProjection.eventTypes }, maxCount: PAGE });
        total += batch.events.length;
        after = batch.checkpoint;
        if (batch.events.length < PAGE) break;
      }
      return total / ((performance.now() - started) / 1000);
    };
    await read(); // warm-up for both: the table in the cache, plans made.
    const rates = await pairedRounds(
      {
        rebuild: (round) => phase(`round ${round + 1} rebuild`, pgCpu, rebuild),
        read: (round) => phase(`round ${round + 1} read`, pgCpu, read),
      },
      ROUNDS,
    );
    console.log(`rebuild of ${COLLECTION_TRAIL_PROJECTION} over ${EVENTS} events, ${rates.rebuild.length} rounds in rotated order; ${loadNow()}`);
    console.log(`  rebuild events/s: ${rates.rebuild.map(Math.round).join(', ')}`);
    console.log(`  raw read events/s (readAll, the same filter, pages of ${PAGE}): ${rates.read.map(Math.round).join(', ')}`);
    console.log(verdict('rebuild/read', ratioInterval(rates.rebuild, rates.read), TARGET.rebuildVsRead, disturbedBaseline('read', rates.read)));

    const service = await startServiceProcess(database, {}, { dataDir });
    try {
      const serviceCpu = await cpu(service.pid);
      const checkpoint = async () => (await readCheckpoints(database.knex, [COLLECTION_TRAIL_PROJECTION])).get(COLLECTION_TRAIL_PROJECTION)?.position ?? START;
      const head = await store.headPosition();
      const caughtUp = performance.now();
      while (comparePositions(await checkpoint(), head) < 0) await sleep(100);
      console.log(`service started (npm start, pid ${service.pid}); ${COLLECTION_TRAIL_PROJECTION} at the head ${((performance.now() - caughtUp) / 1000).toFixed(1)} s after it listened`);
      // The service's other projections start from nothing and read the whole seeded log: while
      // they catch up, the live one shares the projector with them, and its lag measured the
      // catch-up (p50 of three minutes). Measured once no checkpoint has moved for five seconds.
      const behind = await projectionsSettled(database, head);
      console.log(
        `every projection settled ${((performance.now() - caughtUp) / 1000).toFixed(1)} s after the service listened${behind.length ? `; short of the head (nothing of theirs in the log, or they keep no checkpoint for it): ${behind.join(', ')}` : ''}`,
      );

      // One event every 1/RATE s into one of the seeded collections; a watcher notes when the checkpoint covers each.
      const pending: Array<{ position: Position; at: number }> = [];
      const lags: number[] = [];
      let appending = true;
      const watcher = (async () => {
        while (appending || pending.length) {
          const at = await checkpoint();
          const now = performance.now();
          while (pending.length && comparePositions(pending[0]!.position, at) <= 0) lags.push(now - pending.shift()!.at);
          await sleep(10);
        }
      })();
      const total = RATE * LAG_SECONDS;
      await phase(`lag phase, ${RATE} events/s for ${LAG_SECONDS} s (service process and PostgreSQL)`, serviceCpu, async () => {
        const started = performance.now();
        const inFlight: Promise<void>[] = [];
        for (let i = 0; i < total; i++) {
          const due = started + (i * 1000) / RATE;
          const wait = due - performance.now();
          if (wait > 0) await sleep(wait);
          // A collection created: the one event a new stream may begin with.
          const collection = collectionIdOf(Math.ceil(EVENTS / PER_COLLECTION) + i);
          inFlight.push(
            store.appendToStream(collectionStream(collection), collectionEvents(organizationId, collection, 1), { expectedRevision: 'no_stream' }).then(({ position }) => {
              // Appends run concurrently: keep pending in position order for the watcher.
              const index = pending.findIndex((p) => comparePositions(p.position, position) > 0);
              pending.splice(index === -1 ? pending.length : index, 0, { position, at: performance.now() });
            }),
          );
        }
        await Promise.all(inFlight);
        appending = false;
        await watcher;
      });
      lags.sort((a, b) => a - b);
      console.log(
        `projection lag under ${RATE} appends/s for ${LAG_SECONDS} s (${lags.length} events): p50 ${percentile(lags, 50).toFixed(0)} ms, p99 ${percentile(lags, 99).toFixed(0)} ms, max ${lags.at(-1)!.toFixed(0)} ms (no target; PROJECTION_POLL_MS 50 as shipped)`,
      );
    } finally {
      await service.stop();
    }
  } finally {
    await store.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
