import { countOf } from '../../platform/database/knex.ts';
import { createIdGenerator } from '../../platform/ids.ts';
import { collectionStream, type CollectionEventType, COLLECTION_ACTIONS } from '../../domain/collection/events.ts';
import { COLLECTION_TRAIL_PROJECTION } from '../../projections/collection/trail-projection.ts';
import type { TestApp } from '../support/app.ts';
import { eventually } from '../support/wait.ts';

const ids = createIdGenerator();
export const newId = () => ids.objectId();
const actionOf = (type: CollectionEventType) => COLLECTION_ACTIONS.find((a) => a.type === type)!.action;

/**
 * Appends collection events as the collection module writes them (the envelope, plus extra
 * fields on CollectionCreated), straight to the store, and waits for the trail projection.
 */
export async function appendCollectionEvents(app: TestApp, organizationId: string, collectionId: string, types: CollectionEventType[], payload: (i: number) => Record<string, unknown> = () => ({})) {
  const base = Date.parse('2026-11-23T12:00:00.000Z');
  const events = types.map((type, i) => ({
    type,
    data: {
      organizationId,
      collectionId,
      itemId: type.startsWith('Item') ? 'a'.repeat(24) : null,
      recipientId: type.startsWith('Recipient') ? 'b'.repeat(24) : null,
      action: actionOf(type),
      actorType: type.startsWith('Recipient') ? 'RECIPIENT' : 'USER',
      actorId: 'c'.repeat(24),
      occurredAt: new Date(base + i * 1000).toISOString(),
      payload: payload(i),
      ...(type === 'CollectionCreated' ? { definition: { items: [{ title: 'Contrato social' }] } } : {}),
    },
  }));
  const { position } = await app.app.store.appendToStream(collectionStream(collectionId), events);
  await app.app.readYourWrites([COLLECTION_TRAIL_PROJECTION], position);
}

/** Polls until every status change of the collection has its seal (the sealer runs on its own). */
export async function waitForSeals(app: TestApp, collectionId: string): Promise<void> {
  await eventually(
    async () => {
      return (await countOf(app.database.knex('collection_trail_unsealed').where({ collection_id: collectionId }))) === 0;
    },
    { timeoutMs: 20_000, what: `the seals of ${collectionId}` },
  );
}

export async function exportOf(app: TestApp, token: string, collectionId: string, format = 'json') {
  const response = await fetch(`${app.url}/v1/collections/${collectionId}/trail/export?format=${format}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}
