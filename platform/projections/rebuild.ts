import type Logger from 'bunyan';
import type { Knex } from 'knex';
import { randomBytes } from 'node:crypto';
import { comparePositions, START, type EventStore, type Position } from '../eventstore/port.ts';
import { withoutStatementTimeout } from '../database/knex.ts';
import { writeWithParking, type BatchTarget } from './apply.ts';
import { lockCheckpoint, saveCheckpoint } from './checkpoints.ts';
import { projectionContext, type Projection } from './projection.ts';

export interface RebuildProgress {
  projection: string;
  events: number;
  /** Where the replay is, and the store's head when it began (for a progress bar). */
  at: Position;
  head: Position;
}

export interface RebuildOptions {
  batchSize?: number;
  onProgress?: (p: RebuildProgress) => void;
  log?: Logger;
  /** Tries of one event before it is parked, as in the live runner. */
  maxAttempts?: number;
  /** How long the switch waits for readers of the live tables before trying again. */
  switchLockTimeoutMs?: number;
}

/** The rebuild's tables: unqualified names in the projection's handler resolve to them first. */
class ShadowTarget implements BatchTarget {
  constructor(private readonly schema: string) {}

  async begin(trx: Knex.Transaction): Promise<void> {
    await trx.raw(`set local search_path to ${this.schema}, public`);
  }

  async finish(): Promise<void> {}

  committed(): void {}
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Foreign keys and views hold on to a table itself, not to its name: after a switch they would
 * point at the retired tables (or vanish with them). None exist today; refuse clearly if one
 * ever does, before anything is touched.
 */
async function refuseDependents(db: Knex, tables: readonly string[]): Promise<void> {
  const { rows } = await db.raw(
    `with t as (select oid from pg_class where relnamespace = 'public'::regnamespace and relname = any(?))
     select format('foreign key %s', conname) as what from pg_constraint
       where contype = 'f' and (conrelid in (select oid from t) or confrelid in (select oid from t))
     union
     select format('view %s', v.relname) from pg_depend d
       join pg_rewrite r on r.oid = d.objid join pg_class v on v.oid = r.ev_class
       where d.refobjid in (select oid from t) and v.oid not in (select oid from t)`,
    [tables as string[]],
  );
  if (rows.length) {
    throw new Error(`a blue/green rebuild cannot keep ${rows.map((r: { what: string }) => r.what).join(', ')} attached to ${tables.join(', ')}`);
  }
}

/**
 * Empty copies of the live tables in `schema`, with the same columns, defaults, checks, keys and
 * index names (a later migration may name them), and sequences of their own.
 */
async function createShadowTables(db: Knex, schema: string, tables: readonly string[]): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw(`create schema ${schema}`);
    for (const table of tables) {
      const live = `public.${quoted(table)}`;
      const shadow = `${schema}.${quoted(table)}`;
      await trx.raw(`create table ${shadow} (like ${live} including all excluding indexes)`);
      const { rows: constraints } = await trx.raw(`select conname, pg_get_constraintdef(oid) as def from pg_constraint where conrelid = ?::regclass and contype in ('p', 'u', 'x')`, [live]);
      for (const c of constraints) await trx.raw(`alter table ${shadow} add constraint ${quoted(c.conname)} ${c.def}`);
      const { rows: indexes } = await trx.raw(
        `select pg_get_indexdef(i.indexrelid) as def from pg_index i
         where i.indrelid = ?::regclass and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
        [live],
      );
      for (const i of indexes) await trx.raw((i.def as string).replace(/ ON (ONLY )?\S+ USING /, ` ON $1${shadow} USING `));
      // `like` copies a serial column's default, which still draws from the live table's sequence.
      const { rows: serials } = await trx.raw(
        `select attname from pg_attribute where attrelid = ?::regclass and attnum > 0 and not attisdropped
           and attidentity = '' and pg_get_serial_sequence(?, attname) is not null`,
        [live, live],
      );
      for (const { attname } of serials) {
        const sequence = `${schema}.${quoted(`${table}_${attname}_seq`)}`;
        await trx.raw(`create sequence ${sequence} owned by ${shadow}.${quoted(attname)}`);
        await trx.raw(`alter table ${shadow} alter column ${quoted(attname)} set default nextval('${sequence}')`);
      }
    }
  });
}

/**
 * Triggers hold on to a table, not to its name (the identity tables notify session caches of
 * changes): the new tables get the live ones' triggers just before they take their place, so the
 * replay itself notifies nobody.
 */
async function copyTriggers(trx: Knex.Transaction, schema: string, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    const { rows } = await trx.raw(`select pg_get_triggerdef(oid) as def from pg_trigger where tgrelid = ?::regclass and not tgisinternal`, [`public.${quoted(table)}`]);
    for (const { def } of rows as Array<{ def: string }>) await trx.raw(def.replace(/ ON (ONLY )?\S+ /, ` ON $1${schema}.${quoted(table)} `));
  }
}

/**
 * Rebuild a projection blue/green: replay every event into new tables beside the live ones
 * (the live tables keep serving and the live runner keeps projecting), then, in one transaction
 * that holds the checkpoint row, bring the new tables up to the live checkpoint and put them in
 * place of the old ones. Readers see the old tables or the new ones, never an empty one. The
 * checkpoint is left at the new tables' position: if that is ahead of the live runner, it notices
 * the move and goes on from there.
 */
export async function rebuildProjection(db: Knex, store: EventStore, projection: Projection, options: RebuildOptions = {}): Promise<{ events: number }> {
  const batchSize = options.batchSize ?? 1000;
  const suffix = randomBytes(4).toString('hex');
  const schema = `rebuild_${suffix}`;
  const retired = `retired_${suffix}`;
  const target = new ShadowTarget(schema);
  const context = projectionContext(store);
  const filter = { eventTypes: projection.eventTypes };
  const parking = {
    maxAttempts: options.maxAttempts ?? 3,
    retryDelayMs: 100,
    onParked: (event: { id: string; streamName: string }, error: unknown) =>
      options.log?.error({ err: error, eventId: event.id, stream: event.streamName, projection: projection.name }, 'event parked during rebuild'),
  };
  let at = START;
  let events = 0;

  const catchUp = async (head: Position) => {
    for (;;) {
      const batch = await store.readAll({ after: at, filter, maxCount: batchSize });
      if (batch.events.length) await writeWithParking(db, context, projection, target, batch.events, batch.checkpoint, parking);
      events += batch.events.length;
      at = batch.checkpoint;
      options.onProgress?.({ projection: projection.name, events, at, head });
      if (batch.events.length < batchSize && comparePositions(at, head) >= 0) return;
    }
  };

  await refuseDependents(db, projection.tables);
  await createShadowTables(db, schema, projection.tables);
  try {
    for (let attempt = 1; ; attempt++) {
      await catchUp(await store.headPosition());
      try {
        await db.transaction(async (trx) => {
          await withoutStatementTimeout(trx);
          // Waiting on a long reader would queue every later reader behind this switch: give up and retry.
          await trx.raw(`set local lock_timeout = ${Number(options.switchLockTimeoutMs ?? 5000)}`);
          const live = await lockCheckpoint(trx, projection.name);
          await copyTriggers(trx, schema, projection.tables);
          await trx.raw(`set local search_path to ${schema}, public`);
          // The few events the live runner applied since the last read, written here under its lock.
          while (comparePositions(at, live) < 0) {
            const batch = await store.readAll({ after: at, filter, maxCount: batchSize });
            if (comparePositions(batch.checkpoint, at) <= 0) throw new Error(`the store does not reach ${projection.name}'s checkpoint yet`);
            if (batch.events.length) await projection.handle(batch.events, trx, context);
            events += batch.events.length;
            at = batch.checkpoint;
          }
          const tables = projection.tables.map(quoted);
          await trx.raw(`lock table ${tables.map((t) => `public.${t}`).join(', ')} in access exclusive mode`);
          await trx.raw(`create schema ${retired}`);
          for (const t of tables) await trx.raw(`alter table public.${t} set schema ${retired}`);
          for (const t of tables) await trx.raw(`alter table ${schema}.${t} set schema public`);
          await saveCheckpoint(trx, projection.name, at);
        });
        break;
      } catch (error) {
        // A failure inside the switch leaves everything as it was; the next round parks a bad
        // event through writeWithParking or finds the readers gone.
        if (attempt >= 5) throw error;
        options.log?.warn({ err: error, projection: projection.name, attempt }, 'rebuild switch failed; catching up and trying again');
      }
    }
    await db.raw(`drop schema ${retired} cascade`);
    for (const table of projection.tables) await db.raw(`analyze public.${quoted(table)}`);
    return { events };
  } finally {
    await db.raw(`drop schema if exists ${schema} cascade`);
  }
}
