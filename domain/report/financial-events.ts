import type { DomainEvent } from '../shared/decider.ts';
import type { ReportFacts } from './public-events.ts';

/** One PDF of a batch, as the object store holds it. */
export interface SubmittedFinancialFile {
  /** The object store key (`financial/<organizationId>/<reportId>/<blobId>.pdf`): extraction reads the bytes from it. */
  key: string;
  /** The 24-hex id inside the key. */
  blobId: string;
  /** The name the client gave at presign (or in the multipart part); never trusted for the type. */
  fileName: string;
  sizeBytes: number;
  /** Hex SHA-256 of the stored bytes, computed when the batch was accepted. */
  sha256: string;
}

/**
 * Balance sheet and income statement PDFs accepted for a report, one batch at a time (direct
 * upload's complete, or the multipart route): every file passed the checks, and extraction
 * takes the batch as one analysis.
 */
export type FinancialStatementsSubmitted = DomainEvent<
  'FinancialStatementsSubmitted',
  ReportFacts & {
    /** A fresh ObjectId per accepted batch. */
    batchId: string;
    /** In the order the client gave them. */
    files: SubmittedFinancialFile[];
    via: 'PRESIGNED' | 'MULTIPART';
    submittedAt: string;
    userId: string;
  }
>;
