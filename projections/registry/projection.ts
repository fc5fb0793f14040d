import type { Knex } from 'knex';
import type { CollectionEventData } from '../../domain/collection/events.ts';
import { documentOpinionProvenance, type RegistryDocumentEvent } from '../../domain/registry/document-events.ts';
import { REGISTRY_EVENT_TYPES, type RegistryEvent } from '../../domain/registry/events.ts';
import { ERASED, PERSONAL_DATA_ERASED, SUBJECTS_METADATA, type PersonalDataErased } from '../../platform/personal-data/index.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { Projection } from '../../platform/projections/projection.ts';

export const REGISTRY_PROJECTION = 'registry';

export const REGISTRY_DOCUMENT_EVENT_TYPES: readonly RegistryDocumentEvent['type'][] = [
  'RegistryDocumentReceived',
  'RegistryDocumentProgressed',
  'RegistryDocumentAssessed',
  'RegistryDocumentFailed',
  'RegistryDocumentReprocessed',
  'RegistryDocumentDecided',
  'RegistryDocumentDownloaded',
];

async function applyRegistry(event: RegistryEvent, subjectId: string | null, trx: Knex.Transaction): Promise<void> {
  const d = event.data;
  switch (event.type) {
    case 'RegistryCreated':
    case 'RegistryUpdated': {
      const row = {
        id: d.registryId,
        organization_id: d.organizationId,
        document: event.data.document,
        name: event.data.name,
        entity_type: event.data.entityType,
        contacts: JSON.stringify(event.data.contacts),
        basic_data: JSON.stringify(event.data.basicData),
        kyc_status: event.data.kycStatus,
        completeness: event.data.completeness,
        updated_at: d.at,
      };
      if (event.type === 'RegistryUpdated') await trx('registry_registries').where({ id: d.registryId }).update(row);
      else
        await trx('registry_registries')
          .insert({ ...row, self_declared: event.data.selfDeclared === true, subject_id: subjectId, created_at: d.at })
          .onConflict('id')
          .merge();
      return;
    }
    case 'RegistryKycChanged':
      await trx('registry_registries').where({ id: d.registryId }).update({ kyc_status: event.data.kycStatus, completeness: event.data.completeness, updated_at: d.at });
      return;
    case 'RegistryDocumentRecorded':
      return;
  }
}

async function applyDocument(event: RegistryDocumentEvent, subjectId: string | null, trx: Knex.Transaction): Promise<void> {
  const row = trx('registry_documents').where({ id: event.data.registryDocumentId });
  const at = event.data.at;
  switch (event.type) {
    case 'RegistryDocumentReceived': {
      const d = event.data;
      await trx('registry_documents')
        .insert({
          id: d.registryDocumentId,
          registry_id: d.registryId,
          organization_id: d.organizationId,
          document: d.document,
          file_name: d.fileName,
          mime_type: d.mimeType,
          size_bytes: d.sizeBytes,
          sha256: d.sha256,
          blob_id: d.blobId,
          expected_type: d.expectedType,
          type: d.expectedType,
          source: JSON.stringify(d.source),
          uploaded_by: JSON.stringify(d.uploadedBy),
          status: 'RECEIVED',
          attempt: 1,
          subject_id: subjectId,
          intake_collection_id: d.intake ? (d.source?.collectionId ?? null) : null,
          created_at: at,
          updated_at: at,
        })
        .onConflict('id')
        .ignore();
      return;
    }
    case 'RegistryDocumentProgressed':
      await row.update({ status: 'PROCESSING', stage: event.data.stage, updated_at: at });
      return;
    case 'RegistryDocumentAssessed':
    case 'RegistryDocumentFailed': {
      const { status, type, verdict, score, reason, validUntil } = event.data;
      const provenance = event.type === 'RegistryDocumentAssessed' ? JSON.stringify(documentOpinionProvenance(event.data)) : null;
      await row.update({ status, type, verdict, score, reason, valid_until: validUntil, provenance, stage: null, decision_verdict: null, decided_by_user_id: null, comment: null, updated_at: at });
      return;
    }
    case 'RegistryDocumentReprocessed':
      await row.update({ status: 'RECEIVED', attempt: event.data.attempt, force_type: event.data.forceType, stage: null, updated_at: at });
      return;
    case 'RegistryDocumentDecided': {
      const { status, verdict, comment, decidedByUserId } = event.data;
      await row.update({ status, decision_verdict: verdict, comment, decided_by_user_id: decidedByUserId, updated_at: at });
      return;
    }
    case 'RegistryDocumentDownloaded':
      return;
  }
}

const DOCUMENT_TYPES: ReadonlySet<string> = new Set(REGISTRY_DOCUMENT_EVENT_TYPES);

/** Blank what the rows copied of an erased person (the events themselves read erased from now on). */
async function erase(subjectId: string, trx: Knex.Transaction): Promise<void> {
  await trx('registry_registries').where({ subject_id: subjectId }).update({ name: ERASED, document: ERASED, contacts: '[]', basic_data: '{}' });
  await trx('registry_documents')
    .where({ subject_id: subjectId })
    .update({ document: ERASED, file_name: ERASED, comment: trx.raw('case when comment is null then null else ? end', [ERASED]) });
}

/** An operator linked a public form's intake: its files join the registry's documents. */
const INTAKE_LINKED = 'IntakeLinked';

/** Registries (with completeness and KYC status) and their documents with the latest opinion. */
export const registryProjection: Projection = {
  name: REGISTRY_PROJECTION,
  eventTypes: [...REGISTRY_EVENT_TYPES, ...REGISTRY_DOCUMENT_EVENT_TYPES, INTAKE_LINKED, PERSONAL_DATA_ERASED],
  tables: ['registry_registries', 'registry_documents'],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
    for (const event of events) {
      const subjectId = (event.metadata[SUBJECTS_METADATA] as string[] | undefined)?.[0] ?? null;
      if (event.type === PERSONAL_DATA_ERASED) await erase((event.data as unknown as PersonalDataErased).subjectId, trx);
      else if (event.type === INTAKE_LINKED)
        await trx('registry_documents')
          .where({ intake_collection_id: (event.data as unknown as CollectionEventData).collectionId })
          .update({ intake_collection_id: null });
      else if (DOCUMENT_TYPES.has(event.type)) await applyDocument(event as unknown as RegistryDocumentEvent, subjectId, trx);
      else await applyRegistry(event as unknown as RegistryEvent, subjectId, trx);
    }
  },
};
