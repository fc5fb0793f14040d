import type { Knex } from 'knex';
import { COLLECTION_EVENT_TYPES } from '../../domain/collection/events.ts';
import type { CollectionModuleEvent } from '../../domain/collection/payloads.ts';
import { initialCollectionState, type CollectionState } from '../../domain/collection/state.ts';
import { evolveCollection } from '../../domain/collection/evolve.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { Projection } from '../../platform/projections/projection.ts';

export const COLLECTION_PROJECTION = 'collection';

async function load(trx: Knex.Transaction, collectionId: string): Promise<CollectionState> {
  const row = await trx('collection_collections').where({ id: collectionId }).first('state');
  return row ? (row.state as CollectionState) : initialCollectionState();
}

/** The row of a collection is its state folded by the decider's own evolve: the detail cannot drift from the rules. */
async function save(trx: Knex.Transaction, state: CollectionState, at: string): Promise<void> {
  const collectionId = state.collectionId!;
  await trx('collection_collections')
    .insert({
      id: collectionId,
      organization_id: state.organizationId,
      status: state.status,
      registry_id: state.registryId,
      template_slug: state.template?.slug ?? null,
      subject_name: state.subject.name,
      subject_document: state.subject.document,
      created_at: state.createdAt,
      updated_at: at,
      sent_at: state.sentAt,
      expires_at: state.expiresAt,
      state: JSON.stringify(state),
    })
    .onConflict('id')
    .merge();
  for (const item of state.items) {
    await trx('collection_items')
      .insert({ collection_id: collectionId, item_id: item.itemId, organization_id: state.organizationId, status: item.status, updated_at: at })
      .onConflict(['collection_id', 'item_id'])
      .merge(['status', 'updated_at'])
      .whereRaw('collection_items.status <> excluded.status');
  }
  for (const recipient of state.recipients) {
    await trx('collection_links')
      .insert({ collection_id: collectionId, recipient_id: recipient.recipientId, organization_id: state.organizationId, link_version: recipient.linkVersion, link_hash: recipient.linkHash })
      .onConflict(['collection_id', 'recipient_id'])
      .merge(['link_version', 'link_hash']);
  }
}

/** Collections (listing and detail), their items by status (operator queue) and the recipients' current links. */
export const collectionProjection: Projection = {
  name: COLLECTION_PROJECTION,
  eventTypes: COLLECTION_EVENT_TYPES,
  tables: ['collection_collections', 'collection_items', 'collection_links'],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
    for (const recorded of events) {
      const event = { type: recorded.type, data: recorded.data } as unknown as CollectionModuleEvent;
      const state = evolveCollection(await load(trx, event.data.collectionId), event);
      if (state.collectionId !== null) await save(trx, state, event.data.occurredAt);
    }
  },
};
