import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { comparePositions, type Position, type RecordedEvent } from '../eventstore/port.ts';
import { lockCheckpoint } from './checkpoints.ts';
import { LeaseLost, checkpointFence, saveCheckpointHoldingLease, type Lease } from './leases.ts';
import { parkEvent } from './parking.ts';
import type { Fence, Projection, ProjectionContext } from './projection.ts';

/** The stored checkpoint is not where this writer left it: a rebuild switched tables, or another holder wrote. */
export class CheckpointMoved extends Error {
  constructor(name: string) {
    super(`checkpoint of ${name} moved under its runner`);
    this.name = 'CheckpointMoved';
  }
}

/**
 * Where a batch lands and how its progress is kept, inside the batch's own transaction: the live
 * tables with the checkpoint row (LiveTarget), or a rebuild's new tables (rebuild.ts).
 */
export interface BatchTarget {
  begin(trx: Knex.Transaction): Promise<void>;
  finish(trx: Knex.Transaction, position: Position): Promise<void>;
  /** After the commit: the batch is written up to `position`. */
  committed(position: Position): void;
  /** For a batch in one statement (Projection.writeFenced), when this target allows it. */
  fence?(position: Position): Fence;
}

/**
 * The live read model: the batch commits only if the checkpoint row is still where this writer
 * left it (compare-and-set) and the lease is still its own (fence), so neither a rebuild's switch
 * nor a second holder is ever written over.
 */
export class LiveTarget implements BatchTarget {
  constructor(
    private readonly name: string,
    private readonly lease: Lease,
    public stored: Position,
  ) {}

  async begin(trx: Knex.Transaction): Promise<void> {
    const current = await lockCheckpoint(trx, this.name);
    if (comparePositions(current, this.stored) !== 0) throw new CheckpointMoved(this.name);
  }

  async finish(trx: Knex.Transaction, position: Position): Promise<void> {
    // Checked last: a takeover during a slow handler must still refuse this batch.
    await saveCheckpointHoldingLease(trx, this.name, position, this.lease);
  }

  committed(position: Position): void {
    this.stored = position;
  }

  fence(position: Position): Fence {
    return checkpointFence(this.name, this.stored, position, this.lease);
  }
}

interface Parking {
  event: RecordedEvent;
  error: unknown;
  attempts: number;
}

/** One transaction: the projection's events of the batch, the parked event if any, the new position. */
export async function writeBatch(
  db: Knex,
  context: ProjectionContext,
  projection: Projection,
  target: BatchTarget,
  events: readonly RecordedEvent[],
  position: Position,
  park?: Parking,
): Promise<void> {
  const handled = new Set(projection.eventTypes);
  const relevant = events.filter((e) => handled.has(e.type));
  // One statement instead of five round trips (begin, lock, write, checkpoint, commit): on the
  // outbox's path from an append to its deliveries, each of those was the latency of a busy database.
  if (relevant.length && !park && projection.writeFenced && target.fence && (await projection.writeFenced(relevant, db, target.fence(position)))) {
    target.committed(position);
    return;
  }
  await db.transaction(async (trx) => {
    await target.begin(trx);
    if (relevant.length) await projection.handle(relevant, trx, context);
    if (park) await parkEvent(trx, projection.name, park.event, park.error, park.attempts);
    await target.finish(trx, position);
  });
  target.committed(position);
}

const INFRASTRUCTURE_CODES = new Set([
  // contention and timeouts: serialization, deadlock, lock timeout, statement timeout or cancel
  '40001',
  '40P01',
  '55P03',
  '57014',
  // sockets
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);

/**
 * A failure of the database, the network or of contention, not of an event: it says nothing about
 * the event, so it is never a reason to park (SQLSTATE classes 08 connection and 53 resources,
 * 57P01-57P03 shutdown, the codes above; knex's pool timeout; a dropped client). A projection that
 * keeps failing this way stalls visibly in /ready instead of parking good events.
 */
export function isInfrastructureFailure(error: unknown): boolean {
  const e = error as { code?: unknown; name?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (/^(08|53)/.test(code) || /^57P0[123]$/.test(code) || INFRASTRUCTURE_CODES.has(code)) return true;
  if (e.name === 'KnexTimeoutError') return true;
  return typeof e.message === 'string' && /Connection terminated|Client was closed|connection is closed/i.test(e.message);
}

/** Failures that are about who may write, handled by the runner: never an event's fault. */
function isControlFlow(error: unknown): boolean {
  return error instanceof CheckpointMoved || error instanceof LeaseLost;
}

export interface ParkingOptions {
  /** Tries of one event alone before it is parked. */
  maxAttempts: number;
  /** First wait between those tries; doubles each time. */
  retryDelayMs: number;
  onParked?: (event: RecordedEvent, error: unknown) => void;
}

/**
 * Write a batch; if it fails because of what is in it, write its events one at a time to find
 * the one that fails, retry that one alone a few times, then park it (recorded in the same
 * transaction that moves past it) and go on. The batch's other events are written as usual.
 * Infrastructure failures and lost leases are thrown: the caller backs off and tries again.
 */
export async function writeWithParking(
  db: Knex,
  context: ProjectionContext,
  projection: Projection,
  target: BatchTarget,
  events: readonly RecordedEvent[],
  position: Position,
  options: ParkingOptions,
): Promise<void> {
  try {
    await writeBatch(db, context, projection, target, events, position);
    return;
  } catch (error) {
    if (isControlFlow(error) || isInfrastructureFailure(error)) throw error;
  }
  for (const event of events) {
    for (let attempts = 1; ; attempts++) {
      try {
        await writeBatch(db, context, projection, target, [event], event.position);
        break;
      } catch (error) {
        if (isControlFlow(error) || isInfrastructureFailure(error)) throw error;
        if (attempts < options.maxAttempts) {
          await sleep(options.retryDelayMs * 2 ** (attempts - 1));
          continue;
        }
        // A database that stopped answering during the tries makes every event fail alike.
        await db.raw('select 1');
        await writeBatch(db, context, projection, target, [], event.position, { event, error, attempts });
        options.onParked?.(event, error);
        break;
      }
    }
  }
  const last = events[events.length - 1];
  if (!last || comparePositions(position, last.position) > 0) await writeBatch(db, context, projection, target, [], position);
}
