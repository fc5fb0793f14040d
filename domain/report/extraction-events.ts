import type { DomainEvent } from '../shared/decider.ts';
import type { PublishedPeriod } from '../financial/section.ts';
import type { SectionErrorCode } from './sections.ts';
import type { ReportFacts } from './public-events.ts';

/**
 * A batch of financial statements extracted: the BALANCE_SHEET section was filled in the same
 * append. Carries exactly what registry.financial.extracted sends (plus the report's facts, the
 * batch and every registry document of it, which the webhook leaves out).
 */
export type FinancialStatementsExtracted = DomainEvent<
  'FinancialStatementsExtracted',
  ReportFacts & {
    batchId: string;
    /** The BALANCE_SHEET section the same append filled. */
    sectionId: string;
    /** Which try of this batch's extraction succeeded (1 = the first). */
    attempt: number;
    /** The registry of the report's subject, null when no file could be registered. */
    registryId: string | null;
    /** The registry document of the file that printed the latest period (null: none registered). */
    registryDocumentId: string | null;
    registryDocumentIds: string[];
    periodCount: number;
    latestPeriodAt: string | null;
    periods: PublishedPeriod[];
    extractedAt: string;
  }
>;

/**
 * One try at a batch's extraction began. Recorded before the try, so a process that dies in the
 * middle of one (a PDF that exhausts memory) still spends it: the attempts are bounded across
 * restarts, not only within one process.
 */
export type FinancialStatementsExtractionAttempted = DomainEvent<'FinancialStatementsExtractionAttempted', ReportFacts & { batchId: string; attempt: number; startedAt: string }>;

/** A batch that could not be extracted: the BALANCE_SHEET section ended in ERROR in the same append. */
export type FinancialStatementsExtractionFailed = DomainEvent<
  'FinancialStatementsExtractionFailed',
  ReportFacts & { batchId: string; sectionId: string; attempt: number; code: SectionErrorCode; reason: string; failedAt: string }
>;
