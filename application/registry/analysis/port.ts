import type { ExpectedDocumentType } from '../../../domain/collection/enums.ts';
import type { AnalysisOutcome } from '../../../domain/registry/document-decider.ts';

export interface AnalysisInput {
  bytes: Buffer;
  /** Sniffed from the bytes at upload: application/pdf, image/jpeg or image/png. */
  mimeType: string;
  expectedType: ExpectedDocumentType | null;
  forceType: ExpectedDocumentType | null;
  asOf: string;
  /** Whose document: readers that queue work (the PDF thread) keep each organization's apart. */
  organizationId?: string;
}

/**
 * Reads a document and gives an opinion (type, verdict, score, reason, validity) or a technical
 * failure. The default adapter is offline and deterministic (offline.ts); an AI adapter
 * implements the same port.
 */
export interface DocumentAnalyser {
  analyse(input: AnalysisInput): Promise<AnalysisOutcome>;
}
