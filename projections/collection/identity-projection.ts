import type { Knex } from 'knex';
import type { CollectionModuleEvent } from '../../domain/collection/payloads.ts';
import { maskDocument, takesIdentityCheck } from '../../domain/collection/kinds/identity.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { ERASED, PERSONAL_DATA_ERASED, SUBJECTS_METADATA, type PersonalDataErased } from '../../platform/personal-data/index.ts';
import type { Projection } from '../../platform/projections/projection.ts';

export const COLLECTION_IDENTITY_PROJECTION = 'collection-identity';

/**
 * Where a check came from: SIGNATURE (the check of a SIGNATURE_AND_IDENTITY item), PUBLIC_FORM (an
 * IDENTITY item of a collection the public form opened: created by SYSTEM from a template),
 * COLLECTION (an IDENTITY item of any other collection).
 */
export const IDENTITY_ORIGINS = ['COLLECTION', 'SIGNATURE', 'PUBLIC_FORM'] as const;
export type IdentityOrigin = (typeof IDENTITY_ORIGINS)[number];

async function collected(trx: Knex.Transaction, event: CollectionModuleEvent & { type: 'CollectionCreated' }, subjects: unknown) {
  const { definition } = event.data;
  // An erased definition reads as {}: nothing personal to copy, and no check can follow.
  if (!definition.subject || !definition.items.some(takesIdentityCheck)) return;
  await trx('collection_identity_collections')
    .insert({
      collection_id: event.data.collectionId,
      organization_id: event.data.organizationId,
      registry_id: definition.registryId,
      subject_id: Array.isArray(subjects) ? String(subjects[0]) : null,
      document: maskDocument(definition.subject.document),
      public_form: event.data.actorType === 'SYSTEM' && definition.template !== null,
      signature_item_ids: JSON.stringify(definition.items.filter((i) => i.kind === 'SIGNATURE').map((i) => i.itemId)),
    })
    .onConflict('collection_id')
    .ignore();
}

async function started(trx: Knex.Transaction, event: CollectionModuleEvent & { type: 'IdentityCheckStarted' }, subjects: unknown) {
  const { data } = event;
  const collection = await trx('collection_identity_collections').where({ collection_id: data.collectionId }).first();
  if (!collection) return;
  const origin: IdentityOrigin = (collection.signature_item_ids as string[]).includes(data.itemId!) ? 'SIGNATURE' : collection.public_form ? 'PUBLIC_FORM' : 'COLLECTION';
  await trx('collection_identity_validations')
    .insert({
      check_id: data.payload.checkId,
      organization_id: data.organizationId,
      origin,
      collection_id: data.collectionId,
      item_id: data.itemId,
      recipient_id: data.recipientId,
      registry_id: collection.registry_id,
      subject_id: collection.subject_id,
      recipient_subject_id: Array.isArray(subjects) ? String(subjects[0]) : null,
      document: collection.document,
      image_blob_ids: JSON.stringify(data.imageBlobIds),
      image_count: data.payload.imageCount,
      started_at: data.occurredAt,
    })
    .onConflict('check_id')
    .ignore();
}

async function completed(trx: Knex.Transaction, event: CollectionModuleEvent & { type: 'IdentityCompleted' }) {
  const { payload, occurredAt } = event.data;
  await trx('collection_identity_validations')
    .where({ check_id: payload.checkId })
    .update({
      provider: payload.provider,
      verdict: payload.verdict,
      similarity: payload.similarity,
      liveness: payload.liveness,
      signals: JSON.stringify(payload.signals),
      completed_at: occurredAt,
    });
}

/**
 * Identity checks of collections: the validation listing, kyc.identidade_aprovada and the images an
 * erasure deletes. An erased person's checks leave the read model (their images are deleted too).
 */
export const collectionIdentityProjection: Projection = {
  name: COLLECTION_IDENTITY_PROJECTION,
  eventTypes: ['CollectionCreated', 'IdentityCheckStarted', 'IdentityCompleted', PERSONAL_DATA_ERASED],
  tables: ['collection_identity_collections', 'collection_identity_validations'],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
    for (const recorded of events) {
      if (recorded.type === PERSONAL_DATA_ERASED) {
        const { subjectId } = recorded.data as unknown as PersonalDataErased;
        await trx('collection_identity_collections').where({ subject_id: subjectId }).update({ document: ERASED });
        // The checks of the erased person: those in their collections (the subject), or those they took themselves (a recipient).
        await trx('collection_identity_validations').where({ subject_id: subjectId }).orWhere({ recipient_subject_id: subjectId }).delete();
        continue;
      }
      const event = { type: recorded.type, data: recorded.data } as unknown as CollectionModuleEvent;
      if (event.type === 'CollectionCreated') await collected(trx, event, recorded.metadata[SUBJECTS_METADATA]);
      else if (event.type === 'IdentityCheckStarted') await started(trx, event, recorded.metadata[SUBJECTS_METADATA]);
      else if (event.type === 'IdentityCompleted') await completed(trx, event);
    }
  },
};
