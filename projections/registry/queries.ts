import type { Knex } from 'knex';
import { countOf } from '../../platform/database/knex.ts';
import type { DocumentVerdict, ExpectedDocumentType } from '../../domain/collection/enums.ts';
import type { DocumentSource, RegistryDocumentStatus } from '../../domain/registry/document-events.ts';
import type { ReadProvenance } from '../../domain/shared/provenance.ts';
import { statusOfVerdict } from '../../domain/registry/document-decider.ts';
import type { EntityType, KycStatus, RegistryBasicData, RegistryContact } from '../../domain/registry/events.ts';
import { counts, REQUIRED_DOCUMENTS } from '../../domain/registry/kyc.ts';

/**
 * The registry's documents: never the files of a public form's intake that no operator linked
 * yet, which are the visitor's, not the registry's (docs/public-form.md).
 */
const registryDocuments = (db: Knex) => db('registry_documents').whereNull('intake_collection_id');

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : (value as string));

export interface RegistrySummary {
  registryId: string;
  document: string;
  name: string;
  entityType: EntityType;
  kycStatus: KycStatus;
  completeness: number;
}

export interface RegistryView extends RegistrySummary {
  contacts: RegistryContact[];
  basicData: RegistryBasicData;
  /** Created by a public form's intake: what it holds is what an anonymous visitor declared. */
  selfDeclared: boolean;
  createdAt: string;
  updatedAt: string;
}

function registryOf(row: Record<string, unknown>): RegistryView {
  return {
    registryId: row.id as string,
    document: row.document as string,
    name: row.name as string,
    entityType: row.entity_type as EntityType,
    kycStatus: row.kyc_status as KycStatus,
    completeness: row.completeness as number,
    contacts: row.contacts as RegistryContact[],
    basicData: row.basic_data as RegistryBasicData,
    selfDeclared: row.self_declared === true,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export async function findRegistry(db: Knex, organizationId: string, registryId: string): Promise<RegistryView | null> {
  const row = await db('registry_registries').where({ organization_id: organizationId, id: registryId }).first();
  return row ? registryOf(row) : null;
}

/** What a collection's detail shows of its registry. */
export async function registrySummary(db: Knex, organizationId: string, registryId: string): Promise<RegistrySummary | null> {
  const view = await findRegistry(db, organizationId, registryId);
  if (!view) return null;
  const { registryId: id, document, name, entityType, kycStatus, completeness } = view;
  return { registryId: id, document, name, entityType, kycStatus, completeness };
}

export async function listRegistries(
  db: Knex,
  organizationId: string,
  filter: { search?: string; entityType?: EntityType; kycStatus?: KycStatus; skip: number; take: number },
): Promise<{ total: number; items: RegistryView[] }> {
  const query = db('registry_registries').where({ organization_id: organizationId });
  if (filter.entityType) query.andWhere('entity_type', filter.entityType);
  if (filter.kycStatus) query.andWhere('kyc_status', filter.kycStatus);
  if (filter.search) {
    const digits = filter.search.replace(/\D/g, '');
    query.andWhere((q) => {
      q.whereILike('name', `%${filter.search!.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      if (digits) q.orWhere('document', 'like', `${digits}%`);
    });
  }
  const total = await countOf(query);
  const rows = await query.orderBy('updated_at', 'desc').orderBy('id').offset(filter.skip).limit(filter.take);
  return { total, items: rows.map(registryOf) };
}

export interface RegistryDocumentView {
  registryDocumentId: string;
  registryId: string;
  fileName: string;
  mimeType: string;
  sizeBytes: number;
  sha256: string;
  blobId: string;
  expectedType: ExpectedDocumentType | null;
  source: DocumentSource | null;
  status: RegistryDocumentStatus;
  stage: string | null;
  opinion: {
    type: ExpectedDocumentType | null;
    verdict: DocumentVerdict | null;
    score: number | null;
    reason: string | null;
    attempt: number;
    status: RegistryDocumentStatus;
    validUntil: string | null;
    /** The analyser that gave it and whether it is a sandbox result; null: no opinion (yet). */
    provenance: ReadProvenance | null;
  };
  decision: { verdict: DocumentVerdict; comment: string | null; decidedByUserId: string } | null;
  createdAt: string;
  updatedAt: string;
}

function documentOf(row: Record<string, unknown>): RegistryDocumentView {
  const status = row.status as RegistryDocumentStatus;
  const verdict = row.verdict as DocumentVerdict | null;
  // An operator's decision changes the document's status, not what the analysis said.
  const opinionStatus = row.decided_by_user_id && verdict ? statusOfVerdict(verdict) : status;
  return {
    registryDocumentId: row.id as string,
    registryId: row.registry_id as string,
    fileName: row.file_name as string,
    mimeType: row.mime_type as string,
    sizeBytes: row.size_bytes as number,
    sha256: row.sha256 as string,
    blobId: row.blob_id as string,
    expectedType: row.expected_type as ExpectedDocumentType | null,
    source: row.source as DocumentSource | null,
    status,
    stage: row.stage as string | null,
    opinion: {
      type: row.type as ExpectedDocumentType | null,
      verdict,
      score: row.score as number | null,
      reason: row.reason as string | null,
      attempt: row.attempt as number,
      status: opinionStatus,
      validUntil: row.valid_until as string | null,
      // A row folded before provenance was recorded: an opinion of unknown provenance.
      provenance: verdict === null ? null : ((row.provenance as ReadProvenance | null) ?? { provider: null, sandbox: null }),
    },
    decision: row.decided_by_user_id ? { verdict: row.decision_verdict as DocumentVerdict, comment: row.comment as string | null, decidedByUserId: row.decided_by_user_id as string } : null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export async function listRegistryDocuments(db: Knex, organizationId: string, registryId: string): Promise<RegistryDocumentView[]> {
  const rows = await registryDocuments(db).where({ organization_id: organizationId, registry_id: registryId }).orderBy('created_at', 'desc').orderBy('id', 'desc');
  return rows.map(documentOf);
}

export async function findRegistryDocument(db: Knex, organizationId: string, registryId: string, registryDocumentId: string): Promise<RegistryDocumentView | null> {
  const row = await registryDocuments(db).where({ organization_id: organizationId, registry_id: registryId, id: registryDocumentId }).first();
  return row ? documentOf(row) : null;
}

/**
 * A document of that type already on file for that CPF/CNPJ and still valid at `asOf`: VALIDATED
 * by the analysis or by an operator's VALIDO decision, with no validUntil or one not before
 * asOf's date. The most recently settled one when there are several.
 */
export async function findDocumentOnFile(
  db: Knex,
  organizationId: string,
  document: string,
  expectedType: ExpectedDocumentType,
  asOf: string,
): Promise<{ registryId: string; registryDocumentId: string; validUntil: string | null } | null> {
  const row = await registryDocuments(db)
    .where({ organization_id: organizationId, document, type: expectedType, status: 'VALIDATED' })
    .andWhere((q) => q.whereNull('valid_until').orWhere('valid_until', '>=', asOf.slice(0, 10)))
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .first();
  return row ? { registryId: row.registry_id, registryDocumentId: row.id, validUntil: row.valid_until } : null;
}

/** Each requirement of the registry's entity type and whether a document meets it at `asOf` (docs/registry.md). */
export async function registryRequirements(
  db: Knex,
  organizationId: string,
  registry: Pick<RegistryView, 'registryId' | 'entityType'>,
  asOf: string,
): Promise<Array<{ types: ExpectedDocumentType[]; met: boolean }>> {
  const rows = await registryDocuments(db).where({ organization_id: organizationId, registry_id: registry.registryId }).select('type', 'status', 'verdict', 'valid_until');
  const outcomes = rows.map((r) => ({ type: r.type, status: r.status, verdict: r.verdict, validUntil: r.valid_until }));
  return REQUIRED_DOCUMENTS[registry.entityType].map((types) => ({ types: [...types], met: outcomes.some((o) => types.includes(o.type) && counts(o, asOf)) }));
}

/**
 * Registries with a VALIDATED document whose last valid day is in [fromDay, beforeDay) (days
 * YYYY-MM-DD; fromDay null: any earlier day), after `afterRegistryId` in id order: the KYC expiry
 * job's candidates, `limit` at a time.
 */
export async function registriesWithValidityEnded(
  db: Knex,
  window: { fromDay: string | null; beforeDay: string },
  afterRegistryId: string,
  limit: number,
): Promise<Array<{ organizationId: string; registryId: string }>> {
  const query = registryDocuments(db)
    .distinct('registry_id', 'organization_id')
    .where('status', 'VALIDATED')
    .whereNotNull('valid_until')
    .andWhere('valid_until', '<', window.beforeDay)
    .andWhere('registry_id', '>', afterRegistryId);
  if (window.fromDay) query.andWhere('valid_until', '>=', window.fromDay);
  const rows = await query.orderBy('registry_id').limit(limit);
  return rows.map((row) => ({ organizationId: row.organization_id, registryId: row.registry_id }));
}
