/**
 * `npm run bench:eventstore`: our PostgreSQL event store beside Emmett's PostgreSQL event store
 * (@event-driven-io/emmett-postgresql, a devDependency of this bench only) and beside what the
 * database itself does bare, in one run on one server:
 *
 *  - appends: WRITERS concurrent writers, one event per append, each on a stream of its own with
 *    an exact expected revision (the bare loop: one-row autocommit INSERTs into a table with the
 *    events' columns);
 *  - read all forward: the whole log from the start in pages of PAGE events, into objects (the
 *    bare loop: keyset pages over the same table's primary key).
 *
 * The contenders alternate slice by slice, so that load from elsewhere on a shared machine weighs
 * on all alike: APPEND_ROUNDS rounds of 3 s slices, READ_ROUNDS rounds of full reads. Rates are
 * the median of each contender's slices; ratios are the median of each round's own ratio, which
 * keeps the pairing: on this 2-core VM one read slice ran at 84,000 events/s and the next at
 * 117,000, so the ratio of two medians taken apart drifted by 15% between runs. Ours and the bare
 * table share one fresh database, Emmett has another, on the same server: DATABASE_URL's when
 * set, otherwise a throw-away embedded cluster. Everything is dropped afterwards.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { dumbo, rawSql } from '@event-driven-io/dumbo';
import { getPostgreSQLEventStore, readMessagesBatch } from '@event-driven-io/emmett-postgresql';
import type { Knex } from 'knex';
import pg from 'pg';
import { migrations } from '../application/migrations.ts';
import { createKnex } from '../platform/database/knex.ts';
import { migrateToLatest } from '../platform/database/migrate.ts';
import { START, type Position } from '../platform/eventstore/port.ts';
import { PostgresEventStore } from '../platform/eventstore/postgres.ts';
import { startTestCluster } from '../test/support/cluster.ts';

const WRITERS = 8;
/** Five rounds of 3 s slices: with three, one run in eight had a median round at 0.80x of a typical 0.97x. */
const APPEND_ROUNDS = Number(process.env.BENCH_APPEND_ROUNDS ?? 5);
/** A read of the log takes about half a second (Emmett's, three): more rounds cost little and steady the ratio. */
const READ_ROUNDS = Number(process.env.BENCH_READ_ROUNDS ?? 7);
const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 3000);
const READ_EVENTS = Number(process.env.BENCH_READ_EVENTS ?? 50_000);
const PAGE = 1000;
const TARGET = { appendsVsBare: 0.8, readVsBare: 0.95, vsEmmett: 1 };

const payload = () => ({
  applicationId: randomUUID(),
  amount: Math.round(Math.random() * 1_000_000) / 100,
  currency: 'EUR',
  note: 'benchmark event with a payload of a realistic size for a credit analysis command',
});
const metadata = { userId: 'bench', correlationId: randomUUID() };

type Contender = 'ours' | 'emmett' | 'bare';
const CONTENDERS: Contender[] = ['ours', 'emmett', 'bare'];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** WRITERS loops of `op` for `ms`: operations per second. */
async function appendSlice(ms: number, op: (writer: number) => Promise<void>): Promise<number> {
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
  return count / ((performance.now() - started) / 1000);
}

/** One full read: events per second. */
async function readSlice(readAll: () => Promise<number>): Promise<number> {
  const started = performance.now();
  const events = await readAll();
  return events / ((performance.now() - started) / 1000);
}

interface Alternated {
  /** Each contender's median rate. */
  rates: Record<Contender, number>;
  /** Ours over each other contender, round by round. */
  vsBare: number[];
  vsEmmett: number[];
}

/** `rounds` rounds, each running every contender once in turn. */
async function alternate(label: string, rounds: number, run: Record<Contender, () => Promise<number>>): Promise<Alternated> {
  const rates: Record<Contender, number[]> = { ours: [], emmett: [], bare: [] };
  for (let round = 0; round < rounds; round++) {
    for (const contender of CONTENDERS) {
      rates[contender].push(await run[contender]());
      process.stderr.write(`${label} round ${round + 1}/${rounds} ${contender}: ${Math.round(rates[contender].at(-1)!)}/s\n`);
    }
  }
  return {
    rates: { ours: median(rates.ours), emmett: median(rates.emmett), bare: median(rates.bare) },
    vsBare: rates.ours.map((ours, i) => ours / rates.bare[i]!),
    vsEmmett: rates.ours.map((ours, i) => ours / rates.emmett[i]!),
  };
}

async function server(): Promise<{ adminUrl: string; stop?: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { adminUrl: process.env.DATABASE_URL };
  process.stderr.write('starting a throw-away PostgreSQL cluster...\n');
  const cluster = await startTestCluster();
  return { adminUrl: cluster.url, stop: cluster.stop };
}

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function createBareTable(knex: Knex): Promise<void> {
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
}

const { adminUrl, stop: stopServer } = await server();
const names = { ours: `bench_${randomBytes(5).toString('hex')}`, emmett: `bench_emmett_${randomBytes(5).toString('hex')}` };
await withAdmin(adminUrl, async (c) => {
  await c.query(`create database ${names.ours}`);
  await c.query(`create database ${names.emmett}`);
});
const urlOf = (name: string) => adminUrl.replace(/\/[^/?]*(\?.*)?$/, `/${name}$1`);

const knex = createKnex(urlOf(names.ours), WRITERS + 4);
const store = new PostgresEventStore(knex);
const emmett = getPostgreSQLEventStore(urlOf(names.emmett));
const emmettPool = dumbo({ connectionString: urlOf(names.emmett) });
try {
  await migrateToLatest(knex, migrations);
  await createBareTable(knex);
  const version = (await knex.raw('show server_version')).rows[0].server_version;
  const sync = (await knex.raw('show synchronous_commit')).rows[0].synchronous_commit;
  console.log(
    `PostgreSQL ${version}, synchronous_commit=${sync}; appends: ${WRITERS} writers, ${SLICE_MS / 1000} s slices; ` +
      `read all: ${READ_EVENTS} events or more, pages of ${PAGE}; ${APPEND_ROUNDS} and ${READ_ROUNDS} rounds of alternating slices`,
  );

  // Warm-up: connections opened, plans and functions cached, Emmett's schema created.
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; i < 20; i++) {
        await store.appendToStream(`warmup-${w}`, [{ type: 'Warmup', data: {} }]);
        await emmett.appendToStream(`warmup-${w}`, [{ type: 'Warmup', data: {} }]);
        await knex.raw(`insert into bare (stream_name, revision, event_id, event_type, data, metadata) values ('warmup', 0, ?, 'Warmup', '{}', '{}')`, [randomUUID()]);
      }
    }),
  );

  const revisions = new Array<number>(WRITERS).fill(0);
  const ourExpected: (bigint | 'no_stream')[] = new Array(WRITERS).fill('no_stream');
  const emmettExpected: (bigint | undefined)[] = new Array(WRITERS).fill(undefined);
  const appends = await alternate('appends', APPEND_ROUNDS, {
    ours: () =>
      appendSlice(SLICE_MS, async (w) => {
        const result = await store.appendToStream(`account-${w}`, [{ type: 'AmountRecorded', data: payload(), metadata }], {
          expectedRevision: ourExpected[w],
        });
        ourExpected[w] = result.nextExpectedRevision;
      }),
    emmett: () =>
      appendSlice(SLICE_MS, async (w) => {
        const result = await emmett.appendToStream(`account-${w}`, [{ type: 'AmountRecorded', data: payload(), metadata }], {
          expectedStreamVersion: emmettExpected[w] ?? 'STREAM_DOES_NOT_EXIST',
        });
        emmettExpected[w] = result.nextExpectedStreamVersion;
      }),
    bare: () =>
      appendSlice(SLICE_MS, async (w) => {
        await knex.raw('insert into bare (stream_name, revision, event_id, event_type, data, metadata) values (?, ?, ?, ?, ?, ?)', [
          `account-${w}`,
          revisions[w]++,
          randomUUID(),
          'AmountRecorded',
          JSON.stringify(payload()),
          JSON.stringify(metadata),
        ]);
      }),
  });

  // Top every log up to READ_EVENTS (not timed), in appends of 500 events.
  const topUp = async (have: number, append: (writer: number, events: number) => Promise<unknown>) => {
    const perWriter = Math.ceil(Math.max(0, READ_EVENTS - have) / WRITERS);
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let left = perWriter; left > 0; left -= 500) await append(w, Math.min(500, left));
      }),
    );
  };
  const batchOf = (n: number) => Array.from({ length: n }, () => ({ type: 'AmountRecorded', data: payload(), metadata }));
  const count = async (table: string) => Number((await knex.raw(`select count(*)::int as n from ${table}`)).rows[0].n);
  const emmettCount = async () => Number((await emmettPool.execute.query<{ n: number }>(rawSql('select count(*)::int as n from emt_messages'))).rows[0]!.n);
  await topUp(await count('events'), (w, n) => store.appendToStream(`seed-${w}`, batchOf(n)));
  await topUp(await emmettCount(), (w, n) => emmett.appendToStream(`seed-${w}`, batchOf(n)));
  await topUp(await count('bare'), (w, n) =>
    knex.raw(
      `insert into bare (stream_name, revision, event_id, event_type, data, metadata)
       select ?, g, gen_random_uuid(), 'AmountRecorded', ?::jsonb, ?::jsonb from generate_series(1, ?) g`,
      [`seed-${w}`, JSON.stringify(payload()), JSON.stringify(metadata), n],
    ),
  );

  const reads = await alternate('read all', READ_ROUNDS, {
    ours: () =>
      readSlice(async () => {
        let after: Position = START;
        let total = 0;
        for (;;) {
          const { events, checkpoint } = await store.readAll({ after, maxCount: PAGE });
          total += events.length;
          if (events.length < PAGE) return total;
          after = checkpoint;
        }
      }),
    emmett: () =>
      readSlice(async () => {
        let after = 0n;
        let total = 0;
        for (;;) {
          const batch = await readMessagesBatch(emmettPool.execute, { after, batchSize: PAGE });
          total += batch.messages.length;
          if (!batch.areMessagesLeft || batch.messages.length === 0) return total;
          after = batch.currentGlobalPosition;
        }
      }),
    bare: () =>
      readSlice(async () => {
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
      }),
  });

  const verdict = (ratios: number[], target: number) => {
    const ratio = median(ratios);
    const rounds = ratios.map((r) => r.toFixed(2)).join(', ');
    return `${ratio.toFixed(2)}x (rounds ${rounds}; target >= ${target}x: ${ratio >= target ? 'met' : 'NOT met'})`;
  };
  const line = (what: string, unit: string, { rates: r, vsBare: bare, vsEmmett }: Alternated, vsBare: number) => {
    console.log(`${what}: ours ${Math.round(r.ours)} ${unit}, Emmett ${Math.round(r.emmett)} ${unit}, bare ${Math.round(r.bare)} ${unit}`);
    console.log(`  ours/bare ${verdict(bare, vsBare)}; ours/Emmett ${verdict(vsEmmett, TARGET.vsEmmett)}`);
  };
  line(`appends, ${WRITERS} writers`, 'ev/s', appends, TARGET.appendsVsBare);
  line('read all forward', 'ev/s', reads, TARGET.readVsBare);
} finally {
  await store.close();
  await knex.destroy();
  await emmett.close();
  await emmettPool.close();
  await withAdmin(adminUrl, async (c) => {
    await c.query(`drop database if exists ${names.ours} with (force)`);
    await c.query(`drop database if exists ${names.emmett} with (force)`);
  });
  await stopServer?.();
}
