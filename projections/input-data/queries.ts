import type { Knex } from 'knex';
import { feedsRegistry, type CollectionState } from '../../domain/collection/state.ts';

/**
 * The completed collections of a registry, as the collection projection folded them, without a
 * public form's intake no operator linked (its answers are not the registry's yet). Their
 * answers are read at call time from this state (spec: "assembled at call time"), so the input
 * data has no table of its own to keep in step or to erase.
 */
export async function completedCollectionsOf(db: Knex, organizationId: string, registryId: string): Promise<CollectionState[]> {
  const rows = await db('collection_collections').where({ organization_id: organizationId, registry_id: registryId, status: 'COMPLETED' }).select('state');
  return rows.map((row) => row.state as CollectionState).filter(feedsRegistry);
}

/** The document types the organization's document analysis has named at least once. */
export async function extractedDocumentTypes(db: Knex, organizationId: string): Promise<string[]> {
  const rows = await db('registry_documents').where({ organization_id: organizationId }).whereNotNull('type').whereNull('intake_collection_id').distinct('type');
  return rows.map((row) => row.type as string);
}

const CONSENT_PREFIX = 'kyc.consentimento_';

/** Consent types accepted in the organization's collections (ad hoc terms included). */
export async function consentTypesSeen(db: Knex, organizationId: string): Promise<string[]> {
  const rows = await db('collection_inputs').where({ organization_id: organizationId }).whereLike('key', `${CONSENT_PREFIX}%`).distinct('key');
  return rows.map((row) => (row.key as string).slice(CONSENT_PREFIX.length));
}
