import type { Knex } from 'knex';
import { comparePositions, type EventStore, type Position, type RecordedEvent } from '../eventstore/port.ts';

/**
 * A read model: the events it handles and the tables it owns. `handle` gets a batch in global
 * order and writes through the transaction it is given, naming its tables without a schema (a
 * rebuild points them at new copies through the search path); the runner commits the checkpoint
 * in the same transaction, so each event is applied exactly once.
 */
export interface Projection {
  name: string;
  eventTypes: readonly string[];
  /** Tables it owns: a rebuild fills new copies of them and switches them in. */
  tables: readonly string[];
  /** `context` is always given by the runner, a rebuild and a parked retry; a test driving a handler may leave it out. */
  handle(events: readonly RecordedEvent[], trx: Knex.Transaction, context?: ProjectionContext): Promise<void>;
  /**
   * Optional, for a projection on a hot path: the batch written by one statement of its own, with
   * the fence's CTEs and every write of it guarded by the fence (see Fence), so that the statement
   * either writes the batch and moves the checkpoint, or writes nothing. True: written. False:
   * nothing written (the fence or the projection's own check refused). Undefined: this batch needs
   * `handle`, and nothing was sent. Either way but true, the runner writes the batch with `handle`
   * in a transaction, which says why a fence refused.
   */
  writeFenced?(events: readonly RecordedEvent[], db: Knex, fence: Fence): Promise<boolean | undefined>;
}

/**
 * What a batch written in one statement must carry (Projection.writeFenced). `check`, the first
 * CTE, locks the checkpoint row and finds whether it is where this writer left it and the lease
 * still its own; `guard` holds only then. `save(condition)` is the CTE that moves the checkpoint
 * when `condition` holds: the statement's whole condition, the fence's and any check of the
 * projection's own, so that the checkpoint never moves past a batch the statement did not write.
 */
export interface Fence {
  check: { sql: string; bindings: string[] };
  guard: string;
  save(condition: string): { sql: string; bindings: string[] };
}

/**
 * What a handler may read besides its batch. A row that must be folded again from its stream (a
 * subject's erasure changes what earlier events read as) reads the stream only as far as the
 * event being applied: a live run, a rebuild and a parked retry then write the same row.
 */
export interface ProjectionContext {
  streamUpTo(streamName: string, position: Position): Promise<RecordedEvent[]>;
}

export function projectionContext(store: Pick<EventStore, 'readStream'>): ProjectionContext {
  return {
    async streamUpTo(streamName, position) {
      return (await store.readStream(streamName)).filter((e) => comparePositions(e.position, position) <= 0);
    },
  };
}
