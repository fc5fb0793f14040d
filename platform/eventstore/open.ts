import type { Knex } from 'knex';
import type { Config } from '../../config/index.ts';
import type { EventStore } from './port.ts';
import { PostgresEventStore } from './postgres.ts';

/** EventStoreDB when EVENTSTORE_URL is set, else the PostgreSQL adapter on the service's own database. */
export async function openEventStore(config: Config, db: Knex): Promise<EventStore> {
  if (config.EVENTSTORE_URL) {
    const { EventStoreDbStore } = await import('./eventstoredb.ts');
    return new EventStoreDbStore(config.EVENTSTORE_URL);
  }
  return new PostgresEventStore(db, { pollIntervalMs: config.PROJECTION_POLL_MS });
}
