import type { DomainEvent } from '../shared/decider.ts';
import type { Provenance } from '../shared/provenance.ts';
import type { ReportFacts } from './public-events.ts';
import type { SectionOpinionRecorded, SectionOpinionsRequested } from './opinion-events.ts';
import type { SectionError, SectionType, SourceSectionType } from './sections.ts';
import type { Decision } from './statuses.ts';
import type { FinancialStatementsSubmitted } from './financial-events.ts';
import type { FinancialStatementsExtracted, FinancialStatementsExtractionAttempted, FinancialStatementsExtractionFailed } from './extraction-events.ts';

export const REPORT_CATEGORY = 'report';
export const reportStream = (reportId: string) => `${REPORT_CATEGORY}-${reportId}`;

export type ExportFormat = 'pdf' | 'xlsx';

export type ReportRequested = DomainEvent<
  'ReportRequested',
  ReportFacts & {
    userId: string;
    policyName: string;
    /** Sources of the policy the report does not query (SCR without the module). */
    skippedSections: SourceSectionType[];
    yearMonthDay: number;
    /** Every section of the report with its id, in display order (SUMMARY first, CREDIT_POLICY last). */
    sections: Array<{ id: string; type: SectionType }>;
    ranWithoutSCRReason: string | null;
    /** Variables rules read as inputs.<key> (fed by the proposals module). */
    inputs: Record<string, unknown>;
    /** The product of the proposal the report was run for; null (or absent, before it was kept) otherwise. */
    product?: ReportProduct | null;
  }
>;

/** A report's `product`: the product of the proposal it belongs to. */
export interface ReportProduct {
  id: string;
  key: string;
  name: string;
}

export type ReportProcessingStarted = DomainEvent<'ReportProcessingStarted', ReportFacts & { startedAt: string }>;

export type ReportSectionUpdated = DomainEvent<
  'ReportSectionUpdated',
  ReportFacts & {
    sectionId: string;
    sectionType: SectionType;
    outcome: 'DONE' | 'ERROR';
    details: Record<string, unknown> | null;
    selectedIntegrations: string[];
    errors: SectionError[];
    integrationCount: number;
    updatedAt: string;
    /** Which provider produced the section and whether it is a sandbox result (absent before provenance was recorded). */
    provenance?: Provenance;
  }
>;

export type ReportSourcesFinished = DomainEvent<'ReportSourcesFinished', ReportFacts & { finishedAt: string; failedSections: SourceSectionType[]; skippedSections: SourceSectionType[] }>;

export type CreditPolicyEvaluated = DomainEvent<
  'CreditPolicyEvaluated',
  ReportFacts & {
    decision: Decision;
    previousPolicyStatus: string;
    policyErrorStatusApplied: string | null;
    evaluatedAt: string;
  }
>;

export type DecisionKind = 'AUTOMATIC' | 'MANUAL_ANALYSIS' | 'MANUAL_REANALYSIS' | 'COMMITTEE';

export type ReportDecided = DomainEvent<
  'ReportDecided',
  ReportFacts & {
    decision: Decision;
    kind: DecisionKind;
    decidedBy: 'POLICY' | 'ANALYST' | 'COMMITTEE';
    previousStatus: string;
    previousPolicyStatus: string;
    analystId: string | null;
    analystName: string | null;
    previousAnalystId: string | null;
    commentary: string | null;
    decidedAt: string;
    /** Only on the committee's decisions taken on the offline model (absent: a real decision). */
    sandbox?: true;
    /** Who produced the decision (the policy engine, an analyst, the committee's model) and whether it is a sandbox result. */
    provenance?: Provenance;
  }
>;

/** A stored export file, as the export command records it and the event tells subscribers. */
export interface ExportedFile {
  format: ExportFormat;
  blobId: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  /** Signed download link, valid until urlExpiresAt (GET /v2/report signs a fresh one each read). */
  url: string;
  urlExpiresAt: string;
}

export type ReportExported = DomainEvent<'ReportExported', ReportFacts & ExportedFile & { userId: string; exportedAt: string }>;

export type ReportExportFailed = DomainEvent<'ReportExportFailed', ReportFacts & { format: ExportFormat; reason: string; userId: string; failedAt: string }>;

/**
 * Processing kept failing (a source adapter, the policy, the store) past its bounded attempts:
 * the report stops here, FAILED, instead of being retried forever.
 */
export type ReportProcessingFailed = DomainEvent<'ReportProcessingFailed', ReportFacts & { reason: string; attempts: number; failedAt: string }>;

export type ReportEvent =
  | ReportRequested
  | ReportProcessingStarted
  | ReportSectionUpdated
  | ReportSourcesFinished
  | CreditPolicyEvaluated
  | ReportDecided
  | ReportExported
  | ReportExportFailed
  | ReportProcessingFailed
  | FinancialStatementsSubmitted
  | FinancialStatementsExtractionAttempted
  | FinancialStatementsExtracted
  | FinancialStatementsExtractionFailed
  | SectionOpinionsRequested
  | SectionOpinionRecorded;

export const REPORT_EVENT_TYPES: readonly ReportEvent['type'][] = [
  'ReportRequested',
  'ReportProcessingStarted',
  'ReportSectionUpdated',
  'ReportSourcesFinished',
  'CreditPolicyEvaluated',
  'ReportDecided',
  'ReportExported',
  'ReportExportFailed',
  'ReportProcessingFailed',
  'FinancialStatementsSubmitted',
  'FinancialStatementsExtractionAttempted',
  'FinancialStatementsExtracted',
  'FinancialStatementsExtractionFailed',
  'SectionOpinionsRequested',
  'SectionOpinionRecorded',
];
