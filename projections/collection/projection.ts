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

/**
 * A collection's state folded over the events of one batch, saved once at the end of it:
 * `itemsChangedAt` holds when each item last took a status (or appeared) in the batch, which is
 * what its row's updated_at says (the operator queue's order), and `subjects` whose keys sealed
 * part of the batch.
 */
interface Folded {
  state: CollectionState;
  at: string;
  itemsChangedAt: Map<string, string>;
  subjects: Set<string>;
}

/** The row of a collection is its state folded by the decider's own evolve: the detail cannot drift from the rules. */
async function save(trx: Knex.Transaction, { state, at, itemsChangedAt, subjects }: Folded): Promise<void> {
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
  const items = state.items.flatMap((item) => {
    const changedAt = itemsChangedAt.get(item.itemId);
    return changedAt === undefined ? [] : [{ collection_id: collectionId, item_id: item.itemId, organization_id: state.organizationId, status: item.status, updated_at: changedAt }];
  });
  if (items.length) await trx('collection_items').insert(items).onConflict(['collection_id', 'item_id']).merge(['status', 'updated_at']);
  if (state.recipients.length) {
    await trx('collection_links')
      .insert(
        state.recipients.map((recipient) => ({
          collection_id: collectionId,
          recipient_id: recipient.recipientId,
          organization_id: state.organizationId,
          link_version: recipient.linkVersion,
          link_hash: recipient.linkHash,
        })),
      )
      .onConflict(['collection_id', 'recipient_id'])
      .merge(['link_version', 'link_hash']);
  }
  if (subjects.size) {
    await trx('collection_collections')
      .where({ id: collectionId })
      .update({ subject_ids: trx.raw('array(select distinct unnest(subject_ids || ?::text[]))', [[...subjects]]) });
  }
}

const domainEvent = (recorded: RecordedEvent) => ({ type: recorded.type, data: recorded.data }) as unknown as CollectionModuleEvent;
const COLLECTION_TYPES = new Set<string>(COLLECTION_EVENT_TYPES);

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
    const at = domainEvent(events.at(-1)!).data.occurredAt;
    await save(trx, { state, at, itemsChangedAt: new Map(state.items.map((item) => [item.itemId, at])), subjects: new Set() });
  }
}

/** Collections (listing and detail), their items by status (operator queue) and the recipients' current links. */
export const collectionProjection: Projection = {
  name: COLLECTION_PROJECTION,
  eventTypes: [...COLLECTION_EVENT_TYPES, PERSONAL_DATA_ERASED],
  tables: ['collection_collections', 'collection_items', 'collection_links'],
  /**
   * Each collection is loaded once a batch, folded over its events there and saved once (a replay
   * reads a thousand events of one collection a page). An erasure folds collections again from
   * their streams, so what this batch folded so far is saved first.
   */
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction, context?: ProjectionContext) {
    const folding = new Map<string, Folded>();
    const saveFolded = async () => {
      for (const folded of folding.values()) await save(trx, folded);
      folding.clear();
    };
    for (const recorded of events) {
      if (recorded.type === PERSONAL_DATA_ERASED) {
        await saveFolded();
        await refoldErased(trx, context, recorded);
        continue;
      }
      const event = domainEvent(recorded);
      const { collectionId, occurredAt } = event.data;
      const folded = folding.get(collectionId);
      const before = folded?.state ?? (await load(trx, collectionId));
      const state = evolveCollection(before, event);
      if (state.collectionId === null) continue;
      const next = folded ?? { state, at: occurredAt, itemsChangedAt: new Map<string, string>(), subjects: new Set<string>() };
      const statusBefore = new Map(before.items.map((item) => [item.itemId, item.status]));
      for (const item of state.items) if (statusBefore.get(item.itemId) !== item.status) next.itemsChangedAt.set(item.itemId, occurredAt);
      for (const subject of (recorded.metadata[SUBJECTS_METADATA] as string[] | undefined) ?? []) next.subjects.add(subject);
      next.state = state;
      next.at = occurredAt;
      folding.set(collectionId, next);
    }
    await saveFolded();
  },
};
