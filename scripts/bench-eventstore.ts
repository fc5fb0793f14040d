/**
 * `npm run bench:eventstore` (`-- --quick` to prove it runs): our PostgreSQL event store beside
 * what the database does bare, tuned as ours is, and beside Emmett's PostgreSQL event store
 * (@event-driven-io/emmett-postgresql) in a process of its own, on one throw-away embedded cluster
 * (stopped and removed at the end, also on failure). The method is scripts/bench-method.ts':
 * rounds in rotated order, the ratio the median of the per-round ratios with its bootstrap 95%
 * interval, a target met when the interval's lower bound clears it, no verdict when a baseline
 * itself varied too much between rounds.
 *
 *  - appends, WRITERS writers, one event per append, each writer on a stream of its own with an
 *    exact expected revision. Baselines: a one-row INSERT loop into a table with the events'
 *    columns (per-row cost), and the same INSERTs grouped as ours groups appends (one statement
 *    per group, two groups in flight, at most 200 rows: the store's defaults), so that per-row
 *    overhead and batching are seen apart. Targets: >= 0.8x the batched, >= 1x the one-row loop,
 *    >= 3x Emmett.
 *  - read all forward, pages of 1,000, on logs of the same size (topped up, then VACUUM ANALYZE,
 *    then one untimed read by everyone). The tuned bare read uses a prepared statement, array
 *    rows and our column encodings (int8s as text, created_at as epoch), and builds nothing; the
 *    naive one (objects, unprepared) is printed only. Targets: >= 0.9x the tuned, >= 3x Emmett.
 *  - append latency p50/p99, ours, with 1 and 8 writers on streams of their own and 8 writers on
 *    one stream; the batched bare loop's for 1 and 8 writers beside it.
 *
 * Every phase prints the CPU it used (this process's threads, PostgreSQL; Emmett's process is not
 * in it) and the load average. BENCH_ROUNDS, BENCH_SLICE_MS, BENCH_READ_EVENTS, BENCH_LATENCY_MS
 * override the defaults.
 */
import { existsSync } from 'node:fs';
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import pg from 'pg';
import { migrations } from '../application/migrations.ts';
import { createKnex } from '../platform/database/knex.ts';
import { migrateToLatest } from '../platform/database/migrate.ts';
import { START, type Position } from '../platform/eventstore/port.ts';
import { PostgresEventStore } from '../platform/eventstore/postgres.ts';
import { clusterUrl } from '../test/support/db.ts';
import { benchHeader, disturbedBaseline, onBenchEnd, pairedRounds, ratioInterval, runBench, verdict } from './bench-method.ts';
import { asNpmStart, phaseCpu, setting } from './bench-service.ts';
import type { EmmettRequest } from './bench-eventstore-emmett.ts';
import { PAGE, appendSlice, batchOf, metadata, payload, readSlice, topUp } from './bench-eventstore-work.ts';

await asNpmStart();

const WRITERS = 8;
/** Eight: four contenders, each in each position twice. */
const ROUNDS = setting('ROUNDS', 8, 5);
const SLICE_MS = setting('SLICE_MS', 3000, 500);
const READ_EVENTS = setting('READ_EVENTS', 50_000, 5_000);
const LATENCY_MS = setting('LATENCY_MS', 5000, 1000);
const TARGET = { vsBatched: 0.8, vsOneRow: 1, readVsTuned: 0.9, vsEmmett: 3 };
/** PostgresEventStore's defaults: most appends per group, groups in flight. */
const GROUP = { max: 200, inFlight: 2 };

const EMMETT_PRESENT = existsSync(new URL('../node_modules/@event-driven-io/emmett-postgresql/package.json', import.meta.url));

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (values: number[]) => values.map((v) => Math.round(v)).join(', ');

/** Emmett's process, asked one request at a time. */
function startEmmett(url: string): { ask<T>(request: EmmettRequest): Promise<T>; child: ChildProcess } {
  const child = fork(new URL('./bench-eventstore-emmett.ts', import.meta.url).pathname, { env: { ...process.env, BENCH_EMMETT_URL: url }, execArgv: process.execArgv });
  // Ended with the bench, before its cluster is stopped: its connections would hold the stop up.
  const forget = onBenchEnd(() => void child.kill());
  child.once('exit', forget);
  return {
    child,
    ask: <T>(request: EmmettRequest) =>
      new Promise<T>((resolve, reject) => {
        const onExit = () => reject(new Error(`Emmett's process ended during ${request.op}`));
        child.once('exit', onExit);
        child.once('message', (reply: { ok: boolean; result?: unknown; error?: string }) => {
          child.off('exit', onExit);
          if (reply.ok) resolve(reply.result as T);
          else reject(new Error(`Emmett ${request.op}: ${reply.error}`));
        });
        child.send(request);
      }),
  };
}

/** The bare INSERTs grouped as PostgresEventStore groups appends (see its appendToStream). */
class BareGroupCommit {
  private readonly queue: Array<{ row: unknown[]; resolve: () => void; reject: (error: unknown) => void }> = [];
  private committers = 0;

  constructor(private readonly knex: Knex) {}

  insert(row: unknown[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      if (this.committers < GROUP.inFlight) {
        this.committers++;
        void this.commitQueued();
      }
    });
  }

  private async commitQueued(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.queue.length) {
      const group = this.queue.splice(0, GROUP.max);
      const column = (i: number) => group.map((g) => g.row[i]);
      try {
        await this.knex.raw(
          `insert into bare (stream_name, revision, event_id, event_type, data, metadata)
           select * from unnest(?::text[], ?::bigint[], ?::uuid[], ?::text[], ?::jsonb[], ?::jsonb[])`,
          [0, 1, 2, 3, 4, 5].map(column) as Knex.RawBinding[],
        );
        for (const g of group) g.resolve();
      } catch (error) {
        for (const g of group) g.reject(error);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.committers--;
  }
}

/** Each operation's latency over `ms` with `writers` loops: p50 and p99 in ms. */
async function latency(writers: number, ms: number, op: (writer: number) => Promise<void>): Promise<string> {
  const times: number[] = [];
  await appendSlice(writers, ms, async (w) => {
    const started = performance.now();
    await op(w);
    times.push(performance.now() - started);
  });
  times.sort((a, b) => a - b);
  return `p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms (${times.length} appends)`;
}

await runBench(async () => {
  console.log(benchHeader('bench:eventstore'));
  const adminUrl = await clusterUrl();
  const names = { ours: `bench_${randomBytes(5).toString('hex')}`, emmett: `bench_emmett_${randomBytes(5).toString('hex')}` };
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`create database ${names.ours}`);
  if (EMMETT_PRESENT) await admin(`create database ${names.emmett}`);
  const urlOf = (name: string) => adminUrl.replace(/\/[^/?]*(\?.*)?$/, `/${name}$1`);

  const knex = createKnex(urlOf(names.ours), WRITERS + 4);
  const store = new PostgresEventStore(knex);
  const emmett = EMMETT_PRESENT ? startEmmett(urlOf(names.emmett)) : null;
  try {
    await migrateToLatest(knex, migrations);
    await knex.raw(`
      create table bare (
        global_position bigserial primary key,
        stream_name text not null,
        revision bigint not null,
        event_id uuid not null,
        event_type text not null,
        data jsonb not null,
        metadata jsonb not null,
        created_at timestamptz not null default now()
      )`);
    const cpu = phaseCpu(Number((await knex.raw('select pg_backend_pid() as pid')).rows[0].pid));
    const version = (await knex.raw('show server_version')).rows[0].server_version;
    const sync = (await knex.raw('show synchronous_commit')).rows[0].synchronous_commit;
    console.log(
      `PostgreSQL ${version}, synchronous_commit=${sync}; appends: ${WRITERS} writers, ${SLICE_MS / 1000} s slices; read all: ${READ_EVENTS} events, pages of ${PAGE}; ` +
        `${ROUNDS} rounds in rotated order`,
    );
    if (!emmett) console.log('Emmett: @event-driven-io/emmett-postgresql is not in node_modules: not measured, no verdict against it');

    const grouped = new BareGroupCommit(knex);
    const bareRow = (stream: string, revision: number) => [stream, revision, randomUUID(), 'AmountRecorded', JSON.stringify(payload()), JSON.stringify(metadata)];
    const oneRow = (row: unknown[]) =>
      knex.raw('insert into bare (stream_name, revision, event_id, event_type, data, metadata) values (?, ?, ?, ?, ?, ?)', row as Knex.RawBinding[]).then(() => undefined);

    // Warm-up: connections opened, plans and functions cached, Emmett's schema created.
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let i = 0; i < 20; i++) {
          await store.appendToStream(`warmup-${w}`, [{ type: 'Warmup', data: {} }]);
          await oneRow(bareRow('warmup', i));
          await grouped.insert(bareRow('warmup', i));
        }
      }),
    );
    await emmett?.ask({ op: 'warm-up', writers: WRITERS });

    const revisions = { oneRow: new Array<number>(WRITERS).fill(0), grouped: new Array<number>(WRITERS).fill(0) };
    const ourExpected: (bigint | 'no_stream')[] = new Array(WRITERS).fill('no_stream');
    const progress = (phase: string) => (name: string, run: (round: number) => Promise<number>) => async (r: number) => {
      const rate = await run(r);
      process.stderr.write(`${phase} round ${r + 1}/${ROUNDS} ${name}: ${Math.round(rate)}/s\n`);
      return rate;
    };
    const appendsOf = progress('appends');
    const appendContenders: Record<string, (round: number) => Promise<number>> = {
      ours: appendsOf('ours', () =>
        appendSlice(WRITERS, SLICE_MS, async (w) => {
          const result = await store.appendToStream(`account-${w}`, [{ type: 'AmountRecorded', data: payload(), metadata }], { expectedRevision: ourExpected[w] });
          ourExpected[w] = result.nextExpectedRevision;
        }),
      ),
      'bare one-row': appendsOf('bare one-row', () => appendSlice(WRITERS, SLICE_MS, (w) => oneRow(bareRow(`account-${w}`, revisions.oneRow[w]!++)))),
      'bare batched': appendsOf('bare batched', () => appendSlice(WRITERS, SLICE_MS, (w) => grouped.insert(bareRow(`grouped-${w}`, revisions.grouped[w]!++)))),
    };
    if (emmett) appendContenders.emmett = appendsOf('emmett', () => emmett.ask<number>({ op: 'append', writers: WRITERS, ms: SLICE_MS }));
    let printCpu = cpu('appends');
    const appends = await pairedRounds(appendContenders, ROUNDS);
    console.log(`appends, ${WRITERS} writers, events/s per round:`);
    for (const [name, rates] of Object.entries(appends)) console.log(`  ${name.padEnd(13)} ${round(rates)}`);
    printCpu();
    const judge = (what: string, results: Record<string, number[]>, baseline: string, target: number) =>
      console.log(verdict(`${what} ours/${baseline}`, ratioInterval(results.ours!, results[baseline]!), target, disturbedBaseline(baseline, results[baseline]!)));
    judge('appends', appends, 'bare batched', TARGET.vsBatched);
    judge('appends', appends, 'bare one-row', TARGET.vsOneRow);
    if (emmett) judge('appends', appends, 'emmett', TARGET.vsEmmett);

    // Logs of the same size and, for the bare table, the same rows: ours topped up to READ_EVENTS
    // (or to Emmett's, if its append rounds wrote more), the bare table emptied and filled with a
    // copy of our events in our order, Emmett's topped up to the same count. The append rounds
    // left different counts in each (both bare loops write into one table), so without this the
    // reads compared logs of different sizes.
    const count = async (table: string) => Number((await knex.raw(`select count(*)::int as n from ${table}`)).rows[0].n);
    const emmettHas = emmett ? await emmett.ask<number>({ op: 'count' }) : 0;
    await topUp(WRITERS, await count('events'), Math.max(READ_EVENTS, emmettHas), (w, n) => store.appendToStream(`seed-${w}`, batchOf(n)));
    const size = await count('events');
    await knex.raw('truncate bare restart identity');
    await knex.raw(
      `insert into bare (stream_name, revision, event_id, event_type, data, metadata, created_at)
       select stream_name, revision, event_id, event_type, data, metadata, created_at from events order by transaction_id, global_position`,
    );
    const logSizes: Record<string, number> = { ours: size, bare: await count('bare') };
    if (emmett) logSizes.Emmett = await emmett.ask<number>({ op: 'top-up', writers: WRITERS, want: size });
    const sizes = Object.entries(logSizes).map(([name, n]) => `${name} ${n}`);
    if (Object.values(logSizes).some((n) => n !== size)) throw new Error(`the logs to read differ in size (${sizes.join(', ')}): the comparison would be unequal`);
    await knex.raw('vacuum analyze events');
    await knex.raw('vacuum analyze bare');
    await emmett?.ask({ op: 'vacuum' });

    const readOurs = async () => {
      let after: Position = START;
      let total = 0;
      for (;;) {
        const { events, checkpoint } = await store.readAll({ after, maxCount: PAGE });
        total += events.length;
        if (events.length < PAGE) return total;
        after = checkpoint;
      }
    };
    // Tuned as ours: a prepared statement (its page size bound, as ours), array rows, int8s as
    // text and created_at as epoch seconds, the same expression ours uses. The ORDER BY and WHERE
    // name the table's column: unqualified, ORDER BY global_position would mean the output column
    // of that name, the text, and every page would sort the rest of the log as strings.
    const readTuned = async () => {
      let after = '0';
      let total = 0;
      for (;;) {
        const { rows } = (await knex
          .raw(
            `select b.global_position::text as global_position, b.stream_name, b.revision::text as revision, b.event_id::text as event_id, b.event_type,
                    b.data, b.metadata, date_part('epoch', b.created_at) as created_at
               from bare b where b.global_position > ?::bigint order by b.global_position limit ?`,
            [after, PAGE],
          )
          .options({ name: 'bench_bare_read', rowMode: 'array' })) as { rows: unknown[][] };
        total += rows.length;
        if (rows.length < PAGE) return total;
        after = rows.at(-1)![0] as string;
      }
    };
    const readNaive = async () => {
      let after = 0;
      let total = 0;
      for (;;) {
        const { rows } = await knex.raw(
          `select global_position, stream_name, revision::text as revision, event_id, event_type, data, metadata, created_at
             from bare where global_position > ? order by global_position limit ?`,
          [after, PAGE],
        );
        total += rows.length;
        if (rows.length < PAGE) return total;
        after = rows.at(-1).global_position;
      }
    };
    // One untimed read each: pages in the buffer cache for everyone alike, statements prepared.
    // Each must read the whole log once, in order: a count that differs means a broken read loop.
    const warmed: Record<string, number> = { ours: await readOurs(), 'bare tuned': await readTuned(), 'bare naive': await readNaive() };
    if (emmett) warmed.emmett = await emmett.ask<number>({ op: 'read-count' });
    for (const [name, read] of Object.entries(warmed)) if (read !== size && name !== 'emmett') throw new Error(`read all: ${name} read ${read} of ${size} events`);
    // Emmett's batch read orders a page by transaction id but starts the next after the page's last
    // global position: rows that concurrent writers committed out of position order are skipped.
    // Its rate is still per event it read; the shortfall is its own, printed, not ours to fix.
    if (warmed.emmett !== undefined && warmed.emmett !== size)
      console.log(`note: Emmett's read-all returned ${warmed.emmett} of its ${size} events (it skips rows committed out of global-position order by concurrent writers)`);

    const readsOf = progress('read all');
    const readContenders: Record<string, (round: number) => Promise<number>> = {
      ours: readsOf('ours', () => readSlice(readOurs)),
      'bare tuned': readsOf('bare tuned', () => readSlice(readTuned)),
      'bare naive': readsOf('bare naive', () => readSlice(readNaive)),
    };
    if (emmett) readContenders.emmett = readsOf('emmett', () => emmett.ask<number>({ op: 'read' }));
    printCpu = cpu('read all');
    const reads = await pairedRounds(readContenders, ROUNDS);
    console.log(`read all forward (${sizes.join(', ')} events; naive bare printed, not judged), events/s per round:`);
    for (const [name, rates] of Object.entries(reads)) console.log(`  ${name.padEnd(13)} ${round(rates)}`);
    printCpu();
    // The tuned read does less than the naive one (no objects, no Dates, no planning): if it came
    // out slower the baseline is broken, and a ratio against it would flatter ours.
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const tunedBroken = median(reads['bare tuned']!) < median(reads['bare naive']!) ? 'the tuned bare read ran slower than the naive one' : null;
    console.log(verdict('read all ours/bare tuned', ratioInterval(reads.ours!, reads['bare tuned']!), TARGET.readVsTuned, tunedBroken ?? disturbedBaseline('bare tuned', reads['bare tuned']!)));
    console.log(`read all ours/bare naive (information, not a target): ${ratioInterval(reads.ours!, reads['bare naive']!).median.toFixed(2)}x`);
    if (emmett) judge('read all', reads, 'emmett', TARGET.vsEmmett);

    printCpu = cpu('append latency');
    const expectedOf = new Map<string, bigint | 'no_stream'>();
    const ourAppend = (stream: string, exact: boolean) => async () => {
      const result = await store.appendToStream(stream, [{ type: 'AmountRecorded', data: payload(), metadata }], { expectedRevision: exact ? (expectedOf.get(stream) ?? 'no_stream') : 'any' });
      if (exact) expectedOf.set(stream, result.nextExpectedRevision);
    };
    let next = 0;
    console.log('append latency, one event per append:');
    console.log(`  ours, 1 writer:             ${await latency(1, LATENCY_MS, ourAppend('latency-1', true))}`);
    console.log(`  ours, 8 writers:            ${await latency(8, LATENCY_MS, (w) => ourAppend(`latency-8-${w}`, true)())}`);
    console.log(`  ours, 8 writers one stream: ${await latency(8, LATENCY_MS, ourAppend('latency-one-stream', false))}`);
    console.log(`  bare batched, 1 writer:     ${await latency(1, LATENCY_MS, () => grouped.insert(bareRow('latency', next++)))}`);
    console.log(`  bare batched, 8 writers:    ${await latency(8, LATENCY_MS, () => grouped.insert(bareRow('latency', next++)))}`);
    printCpu();
  } finally {
    await emmett?.ask({ op: 'close' }).catch(() => emmett.child.kill());
    await store.close();
    await knex.destroy();
    await admin(`drop database if exists ${names.ours} with (force)`);
    if (EMMETT_PRESENT) await admin(`drop database if exists ${names.emmett} with (force)`);
  }
});
