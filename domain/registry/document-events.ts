import type { DomainEvent } from '../shared/decider.ts';
import type { DocumentVerdict, ExpectedDocumentType } from '../collection/enums.ts';
import type { Provenance, ReadProvenance } from '../shared/provenance.ts';

/**
 * `registrydocument-<id>`: one uploaded document of a registry and its analysis. A document has a
 * stream of its own so that analysing many documents of one registry never contends on one stream.
 */
export const REGISTRY_DOCUMENT_CATEGORY = 'registrydocument';
export const registryDocumentStream = (registryDocumentId: string) => `${REGISTRY_DOCUMENT_CATEGORY}-${registryDocumentId}`;

export type RegistryDocumentStatus = 'RECEIVED' | 'PROCESSING' | 'VALIDATED' | 'REJECTED' | 'MANUAL_REVIEW' | 'FAILED';

/** Where a document came from when a recipient sent it for a collection item; null for direct uploads. */
export interface DocumentSource {
  collectionId: string;
  itemId: string;
  recipientId: string | null;
}

interface Base {
  organizationId: string;
  registryId: string;
  registryDocumentId: string;
  at: string;
}

export interface DocumentReceivedData extends Base {
  /** The registry's CPF or CNPJ, digits only. */
  document: string;
  fileName: string;
  mimeType: string;
  sizeBytes: number;
  sha256: string;
  blobId: string;
  expectedType: ExpectedDocumentType | null;
  source: DocumentSource | null;
  /**
   * Sent for a public form's intake not linked yet: the file stays out of the registry (its
   * documents, completeness and KYC status) until an operator links the intake (docs/public-form.md).
   */
  intake?: true;
  uploadedBy: { actorType: 'USER' | 'API_USER' | 'RECIPIENT' | 'SYSTEM'; actorId: string | null };
}

export interface DocumentProgressData extends Base {
  stage: 'EXTRACTING' | 'CLASSIFYING' | 'ASSESSING';
  type: ExpectedDocumentType | null;
  attempt: number;
}

/**
 * How the analysis read the file when not from a PDF's own text layer: Tesseract's OCR (mean word
 * confidence 0 to 1, pages read) or a vision-capable model (its name and the fields it read).
 */
export type DocumentReading = { source: 'OCR'; confidence: number; pages: number } | { source: 'MODEL'; model: string; fields: Record<string, string> };

/** A terminal opinion (status VALIDATED, REJECTED or MANUAL_REVIEW) or, with FAILED, a technical failure. */
export interface DocumentAssessedData extends Base {
  document: string;
  type: ExpectedDocumentType | null;
  status: RegistryDocumentStatus;
  attempt: number;
  verdict: DocumentVerdict | null;
  score: number | null;
  reason: string | null;
  /** The last day the document counts as valid (for example a certificate's expiry); null: no date read. */
  validUntil: string | null;
  source: DocumentSource | null;
  /** The opinion came from sandbox rules (the offline keyword analyser); absent: a real reading. */
  sandbox?: true;
  /** Absent: the PDF's text layer was read. */
  reading?: DocumentReading;
  /** The analyser that gave the opinion and whether it is a sandbox result; absent: recorded before provenance was, or a failure. */
  provenance?: Provenance;
}

/** The offline analyser's keyword rules: a sandbox producer (they name no one, they match words). */
export const KEYWORD_ANALYSER = 'offline-keywords';

/**
 * An opinion's provenance as its event recorded it; one recorded before provenance was says what
 * it can: the keyword rules' `sandbox` flag, or the model that read it; else unknown.
 */
export function documentOpinionProvenance(opinion: { provenance?: Provenance; sandbox?: true; reading?: DocumentReading }): ReadProvenance {
  if (opinion.provenance) return opinion.provenance;
  if (opinion.sandbox) return { provider: KEYWORD_ANALYSER, sandbox: true };
  if (opinion.reading?.source === 'MODEL') return { provider: opinion.reading.model, sandbox: false };
  return { provider: null, sandbox: null };
}

export interface DocumentReprocessedData extends Base {
  attempt: number;
  forceType: ExpectedDocumentType | null;
  overriddenFeedbackVerdict: DocumentVerdict | null;
}

export interface DocumentDecidedData extends Base {
  /** The registry's CPF or CNPJ: names the key that seals `comment` (never sent in the webhook). Absent in events written before it was sealed. */
  document?: string;
  type: ExpectedDocumentType | null;
  status: RegistryDocumentStatus;
  attempt: number;
  verdict: DocumentVerdict;
  comment: string | null;
  decidedByUserId: string;
  source: DocumentSource | null;
}

export type RegistryDocumentEvent =
  | DomainEvent<'RegistryDocumentReceived', DocumentReceivedData>
  | DomainEvent<'RegistryDocumentProgressed', DocumentProgressData>
  | DomainEvent<'RegistryDocumentAssessed', DocumentAssessedData>
  | DomainEvent<'RegistryDocumentFailed', DocumentAssessedData>
  | DomainEvent<'RegistryDocumentReprocessed', DocumentReprocessedData>
  | DomainEvent<'RegistryDocumentDecided', DocumentDecidedData>
  | DomainEvent<'RegistryDocumentDownloaded', Base & { byUserId: string | null }>
  /** The stored file was deleted because its subject's personal data was erased (bookkeeping: no webhook). */
  | DomainEvent<'RegistryDocumentFileDeleted', Base & { blobId: string; cause: 'PERSONAL_DATA_ERASED' }>;
