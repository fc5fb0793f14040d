import { LockNamespace } from '../database/advisory-lock.ts';
import type { Migration } from '../database/migrate.ts';

/** SQLSTATE raised by append_to_stream on a wrong expected revision; DETAIL carries the actual one. */
export const WRONG_EXPECTED_REVISION = 'ES409';
/** SQLSTATE raised by the append functions in a transaction that has already written (or taken an id). */
export const APPEND_NOT_FIRST = 'ES410';

/**
 * The shared advisory lock every append takes before its first write, which is what gives its
 * transaction an id: a reader of the log finds the appends in flight by it (read_horizon) and
 * waits for them alone, not for every transaction the database is running. An append in a
 * transaction that already has an id is refused, since that id could not be known in time to be
 * waited for; the adapter always appends in a statement of its own.
 */
const ANNOUNCE_APPEND = `
  if pg_current_xact_id_if_assigned() is not null then
    raise exception using errcode = '${APPEND_NOT_FIRST}', message = 'an append must be the first write of its transaction';
  end if;
  perform pg_advisory_xact_lock_shared(${LockNamespace.eventAppend}, 1);`;

/**
 * transaction_id is the writer's top-level transaction id (xid8 as bigint). Rows are ordered by
 * (transaction_id, global_position) and read only below the oldest append still running, so a
 * transaction that took an early global position but commits late can never be skipped: until it
 * ends, nothing ordered after it is readable.
 *
 * The streams table is what serializes writers of one stream (its row lock) and checks expected
 * revisions; the unique (stream_name, revision) index on events is a safety net that also serves
 * readStream. There are deliberately no per-type or per-category indexes: filtered reads scan the
 * position index, and every extra index costs each append.
 */
const createTables = `
create table streams (
  stream_name text primary key,
  revision bigint not null
);

create table events (
  global_position bigserial not null,
  transaction_id bigint not null default (pg_current_xact_id()::text::bigint),
  stream_name text not null,
  category text not null,
  revision bigint not null,
  event_id uuid not null,
  event_type text not null,
  data jsonb not null,
  metadata jsonb not null default '{}',
  created_at timestamptz not null default now(),
  primary key (transaction_id, global_position)
);

create unique index events_stream_revision on events (stream_name, revision);
`;

/**
 * One round trip per append. p_expected is 'any', 'no_stream', 'stream_exists' or a revision as
 * text. Returns the stream's last revision and the position of the last event written (null
 * transaction/position when nothing was written and the stream is empty).
 *
 * No EXCEPTION blocks: they would open subtransactions, and it is the top-level transaction id
 * that orders events.
 */
const appendFunction = (announce: boolean) => `
create or replace function append_to_stream(
  p_stream text,
  p_expected text,
  p_ids uuid[],
  p_types text[],
  p_datas jsonb[],
  p_metas jsonb[]
) returns table (next_revision text, transaction_id text, global_position text)
language plpgsql as $$
declare
  v_count bigint := coalesce(array_length(p_types, 1), 0);
  v_last bigint;
  v_actual bigint;
  v_wrong boolean;
begin${announce ? ANNOUNCE_APPEND : ''}
  if v_count = 0 then
    select s.revision into v_actual from streams s where s.stream_name = p_stream;
    -- CASE, not OR: SQL does not promise to short-circuit, and 'any'::bigint would fail. (Not
    -- inline in the IF either: PL/pgSQL would end the condition at the CASE's first THEN.)
    v_wrong := case p_expected
      when 'any' then false
      when 'no_stream' then v_actual is not null
      when 'stream_exists' then v_actual is null
      else v_actual is distinct from p_expected::bigint
    end;
    if v_wrong then
      raise exception using errcode = '${WRONG_EXPECTED_REVISION}', message = 'wrong expected revision',
        detail = coalesce(v_actual::text, 'no_stream');
    end if;
    return query
      select coalesce(v_actual, -1)::text, e.transaction_id::text, e.global_position::text
      from (select 1) one
      left join events e on e.stream_name = p_stream and e.revision = v_actual;
    return;
  end if;

  if p_expected = 'no_stream' then
    insert into streams as s (stream_name, revision) values (p_stream, v_count - 1)
      on conflict (stream_name) do nothing
      returning s.revision into v_last;
  elsif p_expected = 'any' then
    insert into streams as s (stream_name, revision) values (p_stream, v_count - 1)
      on conflict (stream_name) do update set revision = s.revision + v_count
      returning s.revision into v_last;
  elsif p_expected = 'stream_exists' then
    update streams s set revision = s.revision + v_count where s.stream_name = p_stream
      returning s.revision into v_last;
  else
    -- Under READ COMMITTED a concurrent writer makes this re-check the new row version, so of two
    -- writers expecting the same revision exactly one matches.
    update streams s set revision = s.revision + v_count
      where s.stream_name = p_stream and s.revision = p_expected::bigint
      returning s.revision into v_last;
  end if;

  if v_last is null then
    select s.revision into v_actual from streams s where s.stream_name = p_stream;
    raise exception using errcode = '${WRONG_EXPECTED_REVISION}', message = 'wrong expected revision',
      detail = coalesce(v_actual::text, 'no_stream');
  end if;

  return query
    with inserted as (
      insert into events (stream_name, category, revision, event_id, event_type, data, metadata)
      select p_stream, split_part(p_stream, '-', 1), v_last - v_count + u.n, u.id, u.type, u.data, u.meta
      from unnest(p_ids, p_types, p_datas, p_metas) with ordinality as u(id, type, data, meta, n)
      order by u.n
      returning events.transaction_id, events.global_position
    )
    select v_last::text, max(i.transaction_id)::text, max(i.global_position)::text from inserted i;
end
$$;
`;

/**
 * Group commit: several appends, to one stream or many, in one statement and so one commit. Each
 * append keeps its own expected-revision check: one that fails writes nothing and comes back as a
 * row with `actual` set (no exception, which would undo the others), the rest are written. The
 * events of all successful appends go in one insert, in input order.
 *
 * p_streams/p_expected have one entry per append; p_owner (which append, 1-based), p_index (its
 * place in that append, 1-based) and the event arrays have one entry per event. The caller sorts
 * appends by stream name so that two batches lock stream rows in the same order and cannot
 * deadlock. Every append must carry at least one event.
 */
const appendBatchFunction = (announce: boolean) => `
create or replace function append_batch(
  p_streams text[],
  p_expected text[],
  p_owner int[],
  p_index int[],
  p_ids uuid[],
  p_types text[],
  p_datas jsonb[],
  p_metas jsonb[]
) returns table (n int, next_revision text, transaction_id text, global_position text, actual text)
language plpgsql as $$
declare
  v_appends int := array_length(p_streams, 1);
  v_sizes int[] := array_fill(0, array[v_appends]);
  v_last bigint[] := array_fill(null::bigint, array[v_appends]);
  v_revision bigint;
  v_actual bigint;
  v_count int;
begin${announce ? ANNOUNCE_APPEND : ''}
  foreach v_count in array p_owner loop
    v_sizes[v_count] := v_sizes[v_count] + 1;
  end loop;
  for i in 1 .. v_appends loop
    v_count := v_sizes[i];
    v_revision := null;
    if p_expected[i] = 'no_stream' then
      insert into streams as s (stream_name, revision) values (p_streams[i], v_count - 1)
        on conflict (stream_name) do nothing
        returning s.revision into v_revision;
    elsif p_expected[i] = 'any' then
      insert into streams as s (stream_name, revision) values (p_streams[i], v_count - 1)
        on conflict (stream_name) do update set revision = s.revision + v_count
        returning s.revision into v_revision;
    elsif p_expected[i] = 'stream_exists' then
      update streams s set revision = s.revision + v_count where s.stream_name = p_streams[i]
        returning s.revision into v_revision;
    else
      update streams s set revision = s.revision + v_count
        where s.stream_name = p_streams[i] and s.revision = p_expected[i]::bigint
        returning s.revision into v_revision;
    end if;
    if v_revision is null then
      select s.revision into v_actual from streams s where s.stream_name = p_streams[i];
      n := i; next_revision := null; transaction_id := null; global_position := null;
      actual := coalesce(v_actual::text, 'no_stream');
      return next;
    else
      v_last[i] := v_revision;
    end if;
  end loop;

  return query
    with inserted as (
      insert into events (stream_name, category, revision, event_id, event_type, data, metadata)
      select p_streams[u.o], split_part(p_streams[u.o], '-', 1), v_last[u.o] - v_sizes[u.o] + u.k, u.id, u.type, u.data, u.meta
      from unnest(p_owner, p_index, p_ids, p_types, p_datas, p_metas) with ordinality as u(o, k, id, type, data, meta, ord)
      where v_last[u.o] is not null
      order by u.ord
      returning events.stream_name, events.revision, events.transaction_id, events.global_position
    )
    select a.i::int, v_last[a.i]::text, ins.transaction_id::text, ins.global_position::text, null::text
    from generate_subscripts(p_streams, 1) as a(i)
    join inserted ins on ins.stream_name = p_streams[a.i] and ins.revision = v_last[a.i];
end
$$;
`;

/**
 * The read horizon: the oldest transaction this statement's snapshot saw in progress, passing over
 * those known not to append: still running when pg_locks is looked at (once, materialized, so
 * the two uses agree), holding their id but not the append lock (ANNOUNCE_APPEND), they never
 * will append, since an append must come before any other write. A transaction that ended between
 * the snapshot and the look-up is waited for as before, and so are prepared ones (no backend in
 * pg_locks). So a projection's batch, a claim or a long report holds no reader back; only an
 * append in flight does.
 *
 * A function, not a CTE of each read: its statement is planned once per connection (it takes no
 * parameter, so its plan is generic at once), where planning it within every page took about as
 * long as reading a page of a few hundred events. STABLE, so it runs on the calling statement's
 * snapshot, the one the page is read with: a VOLATILE function would take a newer one, and a
 * transaction ending in between would fall below the horizon unread.
 */
const readHorizonFunction = `
create or replace function read_horizon() returns bigint language plpgsql stable as $$
declare
  h bigint;
begin
  with snap as materialized (select pg_current_snapshot() as s),
  locks as materialized (select pid, locktype, mode, granted, transactionid, database, classid, objid, objsubid from pg_locks),
  not_appending as materialized (
    select own.transactionid::text::bigint as xid
      from locks own
     where own.locktype = 'transactionid' and own.mode = 'ExclusiveLock' and own.granted and own.pid is not null
       and not exists (
         select 1 from locks announced
          where announced.pid = own.pid and announced.locktype = 'advisory' and announced.granted
            and announced.classid = ${LockNamespace.eventAppend} and announced.objid = 1 and announced.objsubid = 2
            and announced.database = (select oid from pg_database where datname = current_database()))
  )
  select least(
    pg_snapshot_xmax(snap.s)::text::bigint,
    (select min(x::text::bigint) from pg_snapshot_xip(snap.s) x
      where not exists (select 1 from not_appending n where n.xid = x::text::bigint % 4294967296))
  ) into h
  from snap;
  return h;
end
$$`;

export const eventStoreMigrations: Migration[] = [
  {
    name: '202611220001_eventstore_tables',
    async up(knex) {
      await knex.raw(createTables);
      await knex.raw(appendFunction(false));
    },
    async down(knex) {
      await knex.raw('drop function if exists append_to_stream(text, text, uuid[], text[], jsonb[], jsonb[])');
      await knex.raw('drop table if exists events');
      await knex.raw('drop table if exists streams');
    },
  },
  {
    name: '202611230001_eventstore_append_batch',
    async up(knex) {
      await knex.raw(appendBatchFunction(false));
    },
    async down(knex) {
      await knex.raw('drop function if exists append_batch(text[], text[], int[], int[], uuid[], text[], jsonb[], jsonb[])');
    },
  },
  {
    // positionBefore: a replay since a date reads from there, not from the start of the log. BRIN,
    // not a btree: rows arrive in about created_at order, so a few block ranges summarise the
    // table and an append does not pay for one more btree insert. autosummarize: a range is
    // summarised once filled (by autovacuum), not at the next VACUUM; until then it is scanned.
    name: '202611231500_eventstore_created_at_brin',
    async up(knex) {
      await knex.raw('create index events_created_at on events using brin (created_at) with (autosummarize = on)');
    },
    async down(knex) {
      await knex.raw('drop index if exists events_created_at');
    },
  },
  {
    // A tenant's own events in log order (EventFilter.organizationId): a webhook replay reads
    // them alone instead of every tenant's events since a date. Its cost: one more btree insert
    // per append. Events of no organization (identity's own, say) index a null and are never read
    // through it.
    name: '202611290441_eventstore_events_by_organization',
    async up(knex) {
      await knex.raw(`create index events_organization on events ((data->>'organizationId'), transaction_id, global_position)`);
    },
    async down(knex) {
      await knex.raw('drop index if exists events_organization');
    },
  },
  {
    // Appends announce themselves (ANNOUNCE_APPEND), so that reads wait for them alone.
    name: '202611291400_eventstore_appends_announced',
    async up(knex) {
      await knex.raw(appendFunction(true));
      await knex.raw(appendBatchFunction(true));
    },
    async down(knex) {
      await knex.raw(appendFunction(false));
      await knex.raw(appendBatchFunction(false));
    },
  },
  {
    name: '202611291600_eventstore_read_horizon_function',
    async up(knex) {
      await knex.raw(readHorizonFunction);
    },
    async down(knex) {
      await knex.raw('drop function if exists read_horizon()');
    },
  },
];

/**
 * created_at as epoch seconds in a float8 (dateOfEpoch in postgres.ts makes the Date): a Date made
 * from a number costs the client less than pg's parse of the timestamp's text. date_part rather
 * than extract, whose numeric arithmetic cost the server about 0.8 µs a row against 0.2.
 */
const CREATED_AT = "date_part('epoch', created_at) as created_at";

/** Every bigint leaves the database as text: knex.ts parses int8 as a JS number, which would round. */
export const eventColumns = `
  e.global_position::text as global_position, e.transaction_id::text as transaction_id,
  e.stream_name, e.revision::text as revision, e.event_id::text as event_id, e.event_type,
  e.data, e.metadata, ${CREATED_AT}`;

export const appendSql = 'select * from append_to_stream(?, ?, ?::uuid[], ?::text[], ?::jsonb[], ?::jsonb[])';

export const appendBatchSql = 'select * from append_batch(?::text[], ?::text[], ?::int[], ?::int[], ?::uuid[], ?::text[], ?::jsonb[], ?::jsonb[])';

export interface ReadAllShape {
  eventTypes: boolean;
  categories: boolean;
  /** In the WHERE clause, unlike the other filters: the index events_organization serves it (below). */
  organization: boolean;
  limit: boolean;
  /**
   * 'fresh': the statement finds the read horizon (read_horizon()) and returns it on every row
   * (in a column `horizon`, on a row of its own when no event is below it). 'known': the caller
   * binds a horizon found earlier, after the filters and before the position.
   */
  horizon: 'fresh' | 'known';
}

/** What the names readAllSql's statements are prepared under begin with. */
export const READ_ALL_STATEMENT = 'events_read_all_';

/** The name readAllSql(shape) is prepared under on each connection: one per shape. */
export function readAllStatementName(shape: ReadAllShape): string {
  return `${READ_ALL_STATEMENT}${Number(shape.eventTypes)}${Number(shape.categories)}${Number(shape.organization)}${Number(shape.limit)}_${shape.horizon}`;
}

/**
 * One page of $all: the next `limit` events after a position, in order; with a filter, each is
 * marked `wanted` or not, and events that do not pass come back without their data.
 *
 * Only events below the read horizon (read_horizon) are read, and the statement returns it (in a
 * lateral join, so even when no event qualifies): below it every append has ended, so its events
 * are all visible to this statement's snapshot, or never will be. That stays true for good: ids
 * are handed out in order, so no later transaction gets one below it, and a transaction below it
 * that was still running could not append any more (an append must be its first write). So a
 * reader well behind the head pages with a horizon found earlier, bound as a constant ('known'),
 * and skips the look-up, the lateral join and a column on every row.
 *
 * The filter is deliberately not in the WHERE clause. There the planner estimates it (or, on a
 * freshly loaded table without statistics, guesses it) to be selective, then prefers a bitmap
 * scan of everything after the position plus a sort over walking the position index, and each
 * page of a replay costs the whole rest of the log. Outside it, the scan is bounded by the page
 * size whatever the filter, at the price of a filtered page holding fewer than `limit` events.
 */
export function readAllSql(shape: ReadAllShape): string {
  const tests = [];
  if (shape.eventTypes) tests.push('e.event_type = any(?::text[])');
  if (shape.categories) tests.push('e.category = any(?::text[])');
  const columns = `global_position::text as global_position, transaction_id::text as transaction_id,
    stream_name, revision::text as revision, event_id::text as event_id, event_type, ${CREATED_AT}`;
  const scan = (select: string) => `
      select ${select}
      from events e
      where e.transaction_id < ${shape.horizon === 'fresh' ? 'horizon.h' : '?::bigint'}
        and (e.transaction_id, e.global_position) > (?::bigint, ?::bigint)
        ${shape.organization ? `and e.data->>'organizationId' = ?::text` : ''}
      order by e.transaction_id, e.global_position
      ${shape.limit ? 'limit ?' : ''}`;
  // Unfiltered, every event is wanted: marking them would only cost each row.
  const page = tests.length
    ? `select ${columns}, w.wanted, case when w.wanted then w.data end as data, case when w.wanted then w.metadata end as metadata
       from (${scan(`e.*, (${tests.join(' and ')}) as wanted`)}) w
       order by w.transaction_id, w.global_position`
    : scan(`${columns}, data, metadata`);
  if (shape.horizon === 'known') return page;
  return `
    with horizon as materialized (select read_horizon() as h)
    select horizon.h::text as horizon, page.*
    from horizon left join lateral (${page}) page on true`;
}
