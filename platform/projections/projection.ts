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
