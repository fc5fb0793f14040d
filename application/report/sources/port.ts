import type { TaxDocument } from '../../../domain/shared/document.ts';
import { SECTION_ERROR_MESSAGES, type SectionErrorCode, type SourceSectionType } from '../../../domain/report/sections.ts';

export interface SourceQuery {
  reportId: string;
  organizationId: string;
  document: TaxDocument;
  /** When the query runs: sources compute ages and validity against it (sources are not pure). */
  now: Date;
  /** Aborted when the per-source timeout passes: stop waiting, free the socket. */
  signal: AbortSignal;
}

/** A source that answered without data: the code is the contract's section error code. */
export class SourceError extends Error {
  constructor(
    readonly code: SectionErrorCode,
    message: string = SECTION_ERROR_MESSAGES[code],
  ) {
    super(message);
    this.name = 'SourceError';
  }
}

/**
 * One external source feeding one section. Adapters normalize their provider's answer into the
 * section's shape (docs/reports.md) and throw SourceError for the contract's failure codes;
 * anything else they throw counts as INTEGRATION_UNAVAILABLE.
 */
export interface SourceProvider {
  readonly sectionType: SourceSectionType;
  /** Which integration answered, as Section.errors and selectedIntegrations show it. */
  readonly integrationId: string;
  readonly integrationType: string;
  /** It makes its data up (the sandbox): every section it answers is marked a sandbox result. */
  readonly sandbox: boolean;
  query(query: SourceQuery): Promise<Record<string, unknown>>;
}

/** Chooses the provider of a section for a document (configuration decides the adapters). */
export interface SourceCatalog {
  providerFor(sectionType: SourceSectionType, document: TaxDocument): SourceProvider;
  /** Load what the first query would otherwise wait for (the screening index), before reports are taken. */
  prepare?(): Promise<void>;
  /** Let go of what prepare() holds (the screening's listening connection). */
  close?(): Promise<void>;
}
