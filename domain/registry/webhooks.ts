import type { StoredEventRoute } from '../webhook/routing.ts';
import { documentOpinionProvenance, type DocumentAssessedData } from './document-events.ts';

type Data = Record<string, unknown>;
const pick = (data: Data, fields: readonly string[]): Data => Object.fromEntries(fields.map((field) => [field, data[field] ?? null]));
const ids = ['registryId', 'registryDocumentId'];
const ASSESSMENT = [...ids, 'document', 'type', 'status', 'attempt', 'verdict', 'score', 'reason'];
const REGISTRY = ['registryId', 'document', 'kycStatus', 'completeness'];

/**
 * Stored registry events and the named webhooks they become, with exactly the data fields of the
 * contract (Events, "Data of document and registry events"): what the events carry beyond them
 * (organization, source, blob, validity, actor) is never sent, except one addition: an opinion's
 * `provenance` ({provider, sandbox}), so a subscriber can tell a keyword rule's verdict from a
 * real reading (docs/registry.md). RegistryDocumentDownloaded and RegistryDocumentRecorded are
 * bookkeeping: never sent.
 */
export const REGISTRY_WEBHOOK_ROUTES: Readonly<Record<string, StoredEventRoute>> = {
  RegistryDocumentReceived: {
    publicName: 'registry.document.received',
    data: (d) => ({ ...pick(d, [...ids, 'document', 'fileName', 'mimeType', 'sizeBytes', 'expectedType']), status: 'RECEIVED' }),
  },
  RegistryDocumentProgressed: { publicName: 'registry.document.progress', data: (d) => pick(d, [...ids, 'stage', 'type', 'attempt']) },
  RegistryDocumentAssessed: {
    publicName: 'registry.document.assessed',
    data: (d) => ({ ...pick(d, ASSESSMENT), provenance: documentOpinionProvenance(d as unknown as DocumentAssessedData) }),
  },
  RegistryDocumentFailed: { publicName: 'registry.document.failed', data: (d) => pick(d, ASSESSMENT) },
  RegistryDocumentReprocessed: { publicName: 'registry.document.reprocessed', data: (d) => pick(d, [...ids, 'attempt', 'forceType', 'overriddenFeedbackVerdict']) },
  RegistryDocumentDecided: {
    publicName: 'registry.document.decided',
    data: (d) => pick(d, [...ids, 'type', 'status', 'attempt', 'verdict', 'comment', 'decidedByUserId']),
  },
  // Basic data changed (name, contacts, basicData), or completeness / KYC status did.
  RegistryUpdated: { publicName: 'registry.updated', data: (d) => pick(d, REGISTRY) },
  RegistryKycChanged: { publicName: 'registry.updated', data: (d) => pick(d, REGISTRY) },
};
