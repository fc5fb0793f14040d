/**
 * `npm run bench:eventstore`: how close the PostgreSQL event store comes to the database's own
 * limit, on one database in one run.
 *
 *  1. plain insert: 8 concurrent autocommit INSERTs into a bare table with the events' columns,
 *     the most a PostgreSQL on this machine can commit one row at a time;
 *  2. postgres adapter: 8 concurrent appendToStream calls, one event each, exact expected revision
 *     (1 and 2 alternate in slices, see alternate());
 *  3. projection replay: a rebuild of a simple read model from position 0 through
 *     platform/projections/rebuild.ts (readAll batches of 1000; per batch one transaction with a batched
 *     insert and the checkpoint), over the events of (2) topped up to REPLAY_EVENTS.
 *
 * Uses DATABASE_URL's server when set (in a fresh database, dropped afterwards), otherwise a
 * throw-away embedded cluster.
 */
import { migrations } from '../application/migrations.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import cliProgress from 'cli-progress';
import type { Knex } from 'knex';
import pg from 'pg';
import { createKnex } from '../platform/database/knex.ts';
import { migrateToLatest } from '../platform/database/migrate.ts';
import type { ReadAllOptions } from '../platform/eventstore/port.ts';
import { PostgresEventStore } from '../platform/eventstore/postgres.ts';
import type { Projection } from '../platform/projections/projection.ts';
import { rebuildProjection } from '../platform/projections/rebuild.ts';
import { startTestCluster } from '../test/support/cluster.ts';

const WRITERS = 8;
const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 5000);
const REPLAY_EVENTS = Number(process.env.BENCH_REPLAY_EVENTS ?? 100_000);
const TARGET_RATIO = 0.5;
const TARGET_REPLAY = 20_000;

const payload = () => ({
  applicationId: randomUUID(),
  amount: Math.round(Math.random() * 1_000_000) / 100,
  currency: 'EUR',
  note: 'benchmark event with a payload of a realistic size for a credit analysis command',
});
const metadata = { userId: 'bench', correlationId: randomUUID() };

const ROUNDS = 4;

const bar = new cliProgress.SingleBar(
  { format: '{phase} [{bar}] {percentage}%', stream: process.stderr, hideCursor: true },
  cliProgress.Presets.shades_classic,
);

/** WRITERS loops of `op` for `ms`: how many operations completed and in how long. */
async function slice(ms: number, op: (writer: number) => Promise<void>): Promise<{ count: number; seconds: number }> {
  let count = 0;
  const started = performance.now();
  const deadline = started + ms;
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      while (performance.now() < deadline) {
        await op(w);
        count++;
      }
    }),
  );
  return { count, seconds: (performance.now() - started) / 1000 };
}

/**
 * The two write phases alternate in ROUNDS slices rather than running one after the other, so
 * that load from elsewhere on a shared machine (other fsyncs, above all) weighs on both alike.
 */
async function alternate(
  phases: Record<string, (writer: number) => Promise<void>>,
): Promise<Record<string, { count: number; seconds: number }>> {
  const totals: Record<string, { count: number; seconds: number }> = {};
  const names = Object.keys(phases);
  bar.start(ROUNDS * names.length, 0, { phase: 'appending'.padEnd(18) });
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names) {
      bar.update({ phase: name.padEnd(18) });
      const result = await slice(PHASE_MS / ROUNDS, phases[name]!);
      const total = (totals[name] ??= { count: 0, seconds: 0 });
      total.count += result.count;
      total.seconds += result.seconds;
      bar.increment();
    }
  }
  bar.stop();
  return totals;
}

async function freshDatabase(): Promise<{ url: string; dispose: () => Promise<void> }> {
  let adminUrl = process.env.DATABASE_URL;
  let stopCluster: (() => Promise<void>) | undefined;
  if (!adminUrl) {
    process.stderr.write('starting a throw-away PostgreSQL cluster...\n');
    const cluster = await startTestCluster();
    adminUrl = cluster.url;
    stopCluster = cluster.stop;
  }
  const name = `bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  return {
    url: adminUrl.replace(/\/[^/?]*(\?.*)?$/, `/${name}$1`),
    dispose: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
      await stopCluster?.();
    },
  };
}

async function createBenchTables(knex: Knex): Promise<void> {
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
    );
    create table bench_read (
      event_id uuid primary key,
      stream_name text not null,
      revision bigint not null,
      amount numeric not null
    );`);
}

const readModel: Projection = {
  name: 'bench_read',
  eventTypes: ['AmountRecorded'],
  tables: ['bench_read'],
  async handle(events, trx) {
    // One parameter for the whole batch: a multi-row VALUES list would bind 4 parameters a row.
    const rows = events.map((e) => ({ event_id: e.id, stream_name: e.streamName, revision: e.revision.toString(), amount: e.data.amount }));
    await trx.raw(
      `insert into bench_read (event_id, stream_name, revision, amount)
       select event_id, stream_name, revision, amount
       from jsonb_to_recordset(?::jsonb) as r(event_id uuid, stream_name text, revision bigint, amount numeric)`,
      [JSON.stringify(rows)],
    );
  },
};

const db = await freshDatabase();
const knex = createKnex(db.url, WRITERS + 4);
const store = new PostgresEventStore(knex);
try {
  await migrateToLatest(knex, migrations);
  await createBenchTables(knex);
  const version = (await knex.raw('show server_version')).rows[0].server_version;
  const sync = (await knex.raw('show synchronous_commit')).rows[0].synchronous_commit;
  console.log(
    `PostgreSQL ${version}, synchronous_commit=${sync}, ${WRITERS} writers, ${PHASE_MS / 1000} s per phase in ${ROUNDS} alternating slices`,
  );

  // Warm-up: connections opened, plans and the append function cached.
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; i < 20; i++) {
        await store.appendToStream(`warmup-${w}`, [{ type: 'Warmup', data: {} }]);
        await knex.raw(`insert into bare (stream_name, revision, event_id, event_type, data, metadata) values ('warmup', 0, ?, 'Warmup', '{}', '{}')`, [randomUUID()]);
      }
    }),
  );

  const revisions = new Array<number>(WRITERS).fill(0);
  const expected: (bigint | 'no_stream')[] = new Array(WRITERS).fill('no_stream');
  const { 'plain insert': plain, 'postgres adapter': adapter } = await alternate({
    'plain insert': async (w) => {
      await knex.raw(
        'insert into bare (stream_name, revision, event_id, event_type, data, metadata) values (?, ?, ?, ?, ?, ?)',
        [`account-${w}`, revisions[w]++, randomUUID(), 'AmountRecorded', JSON.stringify(payload()), JSON.stringify(metadata)],
      );
    },
    'postgres adapter': async (w) => {
      const result = await store.appendToStream(
        `account-${w}`,
        [{ type: 'AmountRecorded', data: payload(), metadata }],
        { expectedRevision: expected[w] },
      );
      expected[w] = result.nextExpectedRevision;
    },
  });

  const plainRate = plain.count / plain.seconds;
  const adapterRate = adapter.count / adapter.seconds;
  const ratio = adapterRate / plainRate;

  // Top up the log for a replay long enough to measure; these appends are not timed.
  const have = Number((await knex.raw('select count(*)::int as n from events')).rows[0].n);
  const missing = Math.max(0, REPLAY_EVENTS - have);
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let left = Math.ceil(missing / WRITERS); left > 0; left -= 500) {
        const events = Array.from({ length: Math.min(500, left) }, () => ({ type: 'AmountRecorded', data: payload(), metadata }));
        await store.appendToStream(`seed-${w}`, events);
      }
    }),
  );
  const total = Number((await knex.raw('select count(*)::int as n from events')).rows[0].n);
  const started = performance.now();
  // Time spent in readAll, to tell the store's share of the replay from the projection's.
  let readingMs = 0;
  const timedStore = new Proxy(store, {
    get(target, property) {
      if (property === 'readAll') {
        return async (options: ReadAllOptions) => {
          const begun = performance.now();
          try {
            return await target.readAll(options);
          } finally {
            readingMs += performance.now() - begun;
          }
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  bar.start(total, 0, { phase: 'projection replay'.padEnd(18) });
  const { events: replayed } = await rebuildProjection(knex, timedStore, readModel, {
    batchSize: 1000,
    onProgress: (p) => bar.update(p.events),
  });
  bar.stop();
  const replaySeconds = (performance.now() - started) / 1000;
  const replayRate = replayed / replaySeconds;
  const projected = Number((await knex.raw('select count(*)::int as n from bench_read')).rows[0].n);
  if (projected !== replayed) throw new Error(`replay wrote ${projected} rows for ${replayed} events`);

  const verdict = (ok: boolean) => (ok ? 'ok' : 'BELOW TARGET');
  console.log(`plain insert: ${Math.round(plainRate)} inserts/s (${plain.count} in ${plain.seconds.toFixed(1)} s)`);
  console.log(`postgres adapter: ${Math.round(adapterRate)} appends/s (${adapter.count} in ${adapter.seconds.toFixed(1)} s)`);
  console.log(`ratio: ${Math.round(ratio * 100)}% (target >= ${TARGET_RATIO * 100}%: ${verdict(ratio >= TARGET_RATIO)})`);
  console.log(
    `projection replay: ${Math.round(replayRate)} events/s (${replayed} of ${total} events in ${replaySeconds.toFixed(1)} s, ` +
      `platform/projections/rebuild.ts, batches of 1000, ${Math.round((readingMs / 10 / replaySeconds))}% of it in readAll; ` +
      `target >= ${TARGET_REPLAY}: ${verdict(replayRate >= TARGET_REPLAY)})`,
  );
} finally {
  await store.close();
  await knex.destroy();
  await db.dispose();
}
