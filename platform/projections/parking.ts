import type { Knex } from 'knex';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '../eventstore/port.ts';
import { lockCheckpoint } from './checkpoints.ts';
import { projectionContext, type Projection } from './projection.ts';

export type ParkedStatus = 'parked' | 'retried' | 'skipped';

export interface ParkedEvent {
  id: number;
  projection: string;
  position: Position;
  streamName: string;
  eventId: string;
  eventType: string;
  error: string;
  attempts: number;
  status: ParkedStatus;
  parkedAt: Date;
  resolvedAt: Date | null;
}

interface Row {
  id: number;
  projection: string;
  commit_position: string;
  prepare_position: string;
  stream_name: string;
  event_id: string;
  event_type: string;
  error: string;
  attempts: number;
  status: ParkedStatus;
  parked_at: Date;
  resolved_at: Date | null;
}

const TABLE = 'projection_parked_events';

function fromRow(row: Row): ParkedEvent {
  return {
    id: row.id,
    projection: row.projection,
    position: { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) },
    streamName: row.stream_name,
    eventId: row.event_id,
    eventType: row.event_type,
    error: row.error,
    attempts: row.attempts,
    status: row.status,
    parkedAt: row.parked_at,
    resolvedAt: row.resolved_at,
  };
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 4000);

/** Record an event as parked, in the transaction that moves the projection past it. Parked again (a rebuild) it is reopened. */
export async function parkEvent(trx: Knex.Transaction, projection: string, event: RecordedEvent, error: unknown, attempts: number): Promise<void> {
  const row = {
    projection,
    commit_position: event.position.commit.toString(),
    prepare_position: event.position.prepare.toString(),
    stream_name: event.streamName,
    event_id: event.id,
    event_type: event.type,
    error: errorText(error),
    attempts,
    status: 'parked',
    parked_at: trx.fn.now(),
    resolved_at: null,
  };
  await trx(TABLE).insert(row).onConflict(['projection', 'event_id']).merge();
}

/** Events of one stream still parked: what a route answers a failed state by instead of 404. */
export async function parkedEventsOf(db: Knex, streamName: string): Promise<ParkedEvent[]> {
  const rows: Row[] = await db(TABLE).where({ stream_name: streamName, status: 'parked' }).orderBy('id');
  return rows.map(fromRow);
}

export async function listParked(db: Knex, options: { all?: boolean } = {}): Promise<ParkedEvent[]> {
  const query = db(TABLE).orderBy('id');
  if (!options.all) query.where({ status: 'parked' });
  return ((await query) as Row[]).map(fromRow);
}

/** Events still parked, per projection. */
export async function parkedCounts(db: Knex): Promise<Map<string, number>> {
  const rows: { projection: string; n: number }[] = await db(TABLE).where({ status: 'parked' }).groupBy('projection').select('projection').count({ n: '*' });
  return new Map(rows.map((r) => [r.projection, Number(r.n)]));
}

async function openParked(trx: Knex.Transaction, id: number): Promise<ParkedEvent> {
  const row: Row | undefined = await trx(TABLE).where({ id }).forUpdate().first();
  if (!row) throw new Error(`no parked event ${id}`);
  if (row.status !== 'parked') throw new Error(`parked event ${id} is already ${row.status}`);
  return fromRow(row);
}

/**
 * Apply a parked event now, then the later events of its stream that the projection has already
 * passed, in stream order: those were applied without it (or skipped, having nothing to attach
 * to), and folding them again after it leaves the row as an in-order replay would. It takes the
 * checkpoint row's lock, so it never interleaves with a live batch. Events of other streams that
 * depended on it are not replayed: when that matters, rebuild the projection instead.
 * If the event fails again the row stays parked with one more attempt and the error is thrown.
 */
export async function retryParked(db: Knex, store: EventStore, projections: readonly Projection[], id: number): Promise<ParkedEvent> {
  try {
    return await db.transaction(async (trx) => {
      const parked = await openParked(trx, id);
      const projection = projections.find((p) => p.name === parked.projection);
      if (!projection) throw new Error(`parked event ${id} belongs to unknown projection ${parked.projection}`);
      const checkpoint = await lockCheckpoint(trx, projection.name);
      const handled = new Set(projection.eventTypes);
      const stream = await store.readStream(parked.streamName);
      const from = stream.findIndex((e) => e.id === parked.eventId);
      if (from < 0) throw new Error(`event ${parked.eventId} is no longer in ${parked.streamName}`);
      const replay = stream.slice(from).filter((e, i) => i === 0 || (handled.has(e.type) && comparePositions(e.position, checkpoint) <= 0));
      await projection.handle(replay, trx, projectionContext(store));
      await trx(TABLE).where({ id }).update({ status: 'retried', resolved_at: trx.fn.now() });
      return { ...parked, status: 'retried' as const };
    });
  } catch (error) {
    await db(TABLE)
      .where({ id, status: 'parked' })
      .update({ attempts: db.raw('attempts + 1'), error: errorText(error) });
    throw error;
  }
}

/** Give up on a parked event: the projection stays without it. */
export async function skipParked(db: Knex, id: number): Promise<ParkedEvent> {
  return db.transaction(async (trx) => {
    const parked = await openParked(trx, id);
    await trx(TABLE).where({ id }).update({ status: 'skipped', resolved_at: trx.fn.now() });
    return { ...parked, status: 'skipped' as const };
  });
}
