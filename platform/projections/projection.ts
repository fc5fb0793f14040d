import type { Knex } from 'knex';
import type { RecordedEvent } from '../eventstore/port.ts';

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
  handle(events: readonly RecordedEvent[], trx: Knex.Transaction): Promise<void>;
}
