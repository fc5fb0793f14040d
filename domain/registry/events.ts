import type { DomainEvent } from '../shared/decider.ts';
import type { ActorType, DocumentVerdict, ExpectedDocumentType } from '../collection/enums.ts';
import type { RegistryDocumentStatus } from './document-events.ts';

/**
 * `registry-<id>`: one person or company of an organization (one per CPF/CNPJ) and the outcome of
 * each of its documents, from which completeness and the KYC status are computed.
 */
export const REGISTRY_CATEGORY = 'registry';
export const registryStream = (registryId: string) => `${REGISTRY_CATEGORY}-${registryId}`;

export const ENTITY_TYPES = ['COMPANY', 'PERSON'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** PENDING: nothing accepted yet; INCOMPLETE: some; UNDER_REVIEW: a document waits for an operator; UP_TO_DATE: all (docs/registry.md). */
export const KYC_STATUSES = ['PENDING', 'INCOMPLETE', 'UNDER_REVIEW', 'UP_TO_DATE'] as const;
export type KycStatus = (typeof KYC_STATUSES)[number];

export interface RegistryContact {
  name: string | null;
  email: string | null;
  phone: string | null;
}

/** What an operator records about the subject besides name and document; every field optional. */
export interface RegistryBasicData {
  tradeName?: string | null;
  /** Date of birth (person) or of foundation (company), YYYY-MM-DD. */
  birthOrFoundationDate?: string | null;
  address?: string | null;
  city?: string | null;
  state?: string | null;
  zipCode?: string | null;
}

export interface RegistryActor {
  actorType: ActorType;
  actorId: string | null;
}

interface Base {
  organizationId: string;
  registryId: string;
  at: string;
}

/** The whole record after the change, so a reader of one event needs no other. */
export interface RegistryRecordData extends Base, RegistryActor {
  document: string;
  name: string;
  entityType: EntityType;
  contacts: RegistryContact[];
  basicData: RegistryBasicData;
  kycStatus: KycStatus;
  completeness: number;
  /** Created by a public form's intake: everything in it is what an anonymous visitor declared (docs/public-form.md). */
  selfDeclared?: boolean;
}

/** The latest outcome of one document of the registry (bookkeeping for completeness; never sent). */
export interface RegistryDocumentRecordedData extends Base {
  registryDocumentId: string;
  type: ExpectedDocumentType | null;
  status: RegistryDocumentStatus;
  verdict: DocumentVerdict | null;
  validUntil: string | null;
}

export interface RegistryKycChangedData extends Base {
  document: string;
  kycStatus: KycStatus;
  completeness: number;
}

export type RegistryEvent =
  | DomainEvent<'RegistryCreated', RegistryRecordData>
  | DomainEvent<'RegistryUpdated', RegistryRecordData & { changed: string[] }>
  | DomainEvent<'RegistryDocumentRecorded', RegistryDocumentRecordedData>
  | DomainEvent<'RegistryKycChanged', RegistryKycChangedData>;

export const REGISTRY_EVENT_TYPES: readonly RegistryEvent['type'][] = ['RegistryCreated', 'RegistryUpdated', 'RegistryDocumentRecorded', 'RegistryKycChanged'];
