/**
 * The shared contract suite against a real EventStoreDB, when EVENTSTORE_URL names one
 * (docker compose up eventstore; EVENTSTORE_URL=esdb://localhost:2113?tls=false). The suite
 * writes to categories and event types unique to the run, so a server holding other data works.
 */
import { test } from 'uvu';

const url = process.env.EVENTSTORE_URL;

if (url) {
  // Imported only here, so a run without a server loads neither the suite nor the client.
  const { eventStoreContract } = await import('./contract.ts');
  const { EventStoreDbStore } = await import('../../platform/eventstore/eventstoredb.ts');
  eventStoreContract('eventstoredb', async () => {
    const store = new EventStoreDbStore(url);
    try {
      await store.ping();
    } catch (error) {
      // uvu does not print an error thrown by a before hook; without this the suite just fails.
      console.error(`EventStoreDB at ${url} does not answer:`, error);
      await store.close();
      throw error;
    }
    return { store, cleanup: () => store.close() };
  });
} else {
  console.log('EventStoreDB contract suite skipped: EVENTSTORE_URL is not set');
  test.skip('event store contract (eventstoredb): EVENTSTORE_URL is not set', () => {});
  test.run();
}
