import type { ExpectedDocumentType } from '../../../domain/collection/enums.ts';
import type { AnalysisOutcome } from '../../../domain/registry/document-decider.ts';
import type { DocumentSubject } from '../../../domain/registry/subject.ts';

export interface AnalysisInput {
  bytes: Buffer;
  /** Sniffed from the bytes at upload: application/pdf, image/jpeg or image/png. */
  mimeType: string;
  expectedType: ExpectedDocumentType | null;
  forceType: ExpectedDocumentType | null;
  asOf: string;
  /** The registry's subject, whom the document must name to be VALIDO; null when the registry has none left (erased). */
  subject: DocumentSubject | null;
  /** Whose document: readers that queue work (the PDF thread) keep each organization's apart. */
  organizationId?: string;
}

/**
 * Reads a document and gives an opinion (type, verdict, score, reason, validity) or a technical
 * failure. The default adapter is offline and deterministic (offline.ts); with a vision-capable
 * model configured (DOCUMENT_VISION_MODEL), the model's adapter (vision.ts), which falls back to it.
 */
export interface DocumentAnalyser {
  analyse(input: AnalysisInput): Promise<AnalysisOutcome>;
}
