import type { Knex } from 'knex';
import { COLLECTION_EVENT_TYPES, collectionStream } from '../../domain/collection/events.ts';
import type { CollectionModuleEvent } from '../../domain/collection/payloads.ts';
import { initialCollectionState, type CollectionState } from '../../domain/collection/state.ts';
import { evolveCollection } from '../../domain/collection/evolve.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { PERSONAL_DATA_ERASED, SUBJECTS_METADATA, type PersonalDataErased } from '../../platform/personal-data/index.ts';
import type { Projection, ProjectionContext } from '../../platform/projections/projection.ts';

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

const domainEvent = (recorded: RecordedEvent) => ({ type: recorded.type, data: recorded.data }) as unknown as CollectionModuleEvent;
const COLLECTION_TYPES = new Set<string>(COLLECTION_EVENT_TYPES);

/** Remembers whose keys sealed part of this event, so their erasure finds the row. */
async function noteSubjects(trx: Knex.Transaction, collectionId: string, recorded: RecordedEvent): Promise<void> {
  const subjects = recorded.metadata[SUBJECTS_METADATA] as string[] | undefined;
  if (!subjects?.length) return;
  await trx('collection_collections')
    .where({ id: collectionId })
    .update({ subject_ids: trx.raw('array(select distinct unnest(subject_ids || ?::text[]))', [subjects]) });
}

/**
 * A subject erased: the collections that hold their data are folded again from their streams,
 * which now read the erased fields as erased, exactly as a rebuild would fold them. Items and
 * links go first: an erased definition brings none back.
 */
async function refoldErased(trx: Knex.Transaction, context: ProjectionContext | undefined, erasure: RecordedEvent): Promise<void> {
  const { subjectId } = erasure.data as unknown as PersonalDataErased;
  const rows: Array<{ id: string; subject_ids: string[] }> = await trx('collection_collections')
    .whereRaw('subject_ids @> ?::text[]', [[subjectId]])
    .select('id', 'subject_ids');
  if (!rows.length) return;
  if (!context) throw new Error('the collection projection folds erased collections again from their streams: it needs its context');
  for (const row of rows) {
    const events = (await context.streamUpTo(collectionStream(row.id), erasure.position)).filter((e) => COLLECTION_TYPES.has(e.type));
    const state = events.reduce((folded, recorded) => evolveCollection(folded, domainEvent(recorded)), initialCollectionState());
    await trx('collection_items').where({ collection_id: row.id }).delete();
    await trx('collection_links').where({ collection_id: row.id }).delete();
    if (state.collectionId === null) continue;
    await save(trx, state, domainEvent(events.at(-1)!).data.occurredAt);
  }
}

/** Collections (listing and detail), their items by status (operator queue) and the recipients' current links. */
export const collectionProjection: Projection = {
  name: COLLECTION_PROJECTION,
  eventTypes: [...COLLECTION_EVENT_TYPES, PERSONAL_DATA_ERASED],
  tables: ['collection_collections', 'collection_items', 'collection_links'],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction, context?: ProjectionContext) {
    for (const recorded of events) {
      if (recorded.type === PERSONAL_DATA_ERASED) {
        await refoldErased(trx, context, recorded);
        continue;
      }
      const event = domainEvent(recorded);
      const state = evolveCollection(await load(trx, event.data.collectionId), event);
      if (state.collectionId === null) continue;
      await save(trx, state, event.data.occurredAt);
      await noteSubjects(trx, state.collectionId, recorded);
    }
  },
};
