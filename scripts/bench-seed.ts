/**
 * Events the benches write straight to the store, so that a log of a million events takes minutes
 * rather than the hours it would through HTTP: collection trail entries, which the trail
 * projection turns into one row each (hash-chained per collection, then sealed).
 */
import { collectionStream } from '../domain/collection/events.ts';
import { comparePositions, type EventStore, type EventToAppend, type Position } from '../platform/eventstore/port.ts';

const ACTIONS = { CollectionCreated: 'COLLECTION_CREATED', CollectionSent: 'COLLECTION_SENT', CollectionCompleted: 'COLLECTION_COMPLETED', ItemSubmitted: 'ITEM_SUBMITTED' } as const;

/** Entry `n` of a collection's trail of `total` entries: created, sent, items submitted, completed. */
export function trailEntry(organizationId: string, collectionId: string, n: number, total: number): EventToAppend {
  const type = n === 0 ? 'CollectionCreated' : n === 1 ? 'CollectionSent' : n === total - 1 ? 'CollectionCompleted' : 'ItemSubmitted';
  return {
    type,
    data: {
      organizationId,
      collectionId,
      itemId: n > 1 ? 'a'.repeat(24) : null,
      recipientId: 'b'.repeat(24),
      action: ACTIONS[type],
      actorType: 'RECIPIENT',
      actorId: 'b'.repeat(24),
      occurredAt: new Date(Date.UTC(2026, 10, 23) + n * 1000).toISOString(),
      payload: { n, fileName: `documento-${n}.pdf` },
    },
  };
}

/** A 24-hex collection id from a number. */
export const collectionIdOf = (n: number) => n.toString(16).padStart(24, 'c');

/**
 * `events` trail entries in collections of `perCollection`, the collections spread over the given
 * organizations in turn, appended in batches of up to 1,000 by 4 writers. Returns the last position.
 */
export async function seedTrails(store: EventStore, organizations: readonly string[], events: number, perCollection: number, progress?: (done: number) => void): Promise<Position | undefined> {
  const collections = Math.ceil(events / perCollection);
  let next = 0;
  let done = 0;
  let last: Position | undefined;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < collections) {
        const c = next++;
        const size = Math.min(perCollection, events - c * perCollection);
        for (let offset = 0; offset < size; offset += 1000) {
          const batch = Array.from({ length: Math.min(1000, size - offset) }, (_, i) => trailEntry(organizations[c % organizations.length]!, collectionIdOf(c), offset + i, size));
          const { position } = await store.appendToStream(collectionStream(collectionIdOf(c)), batch, { expectedRevision: 'any' });
          if (!last || comparePositions(position, last) > 0) last = position;
          done += batch.length;
          if (done % 100_000 < batch.length) progress?.(done);
        }
      }
    }),
  );
  return last;
}
