import { consolidate, gapsOf, type ModelValue } from '../../domain/financial/analysis.ts';
import { readStatements, type StatementsRead } from '../../domain/financial/parse.ts';
import type { AnalysedFile, FinancialAnalysis, ModelUse } from '../../domain/financial/section.ts';
import { FinancialExtractionMessages } from '../../domain/financial/messages.ts';
import type { SubmittedFinancialFile } from '../../domain/report/financial-events.ts';
import type { LanguageModel } from '../llm/port.ts';
import type { ObjectStore } from '../object-store.ts';
import type { OcrSettings } from '../../platform/ocr.ts';
import { documentText } from '../document-text.ts';
import { askForGaps } from './model.ts';

/** A file of the batch is gone from the store: asking again will not bring it back. */
export class MissingStatementError extends Error {
  constructor(readonly fileName: string) {
    super(FinancialExtractionMessages.fileMissing(fileName));
    this.name = 'MissingStatementError';
  }
}

export interface ReadFile {
  file: SubmittedFinancialFile;
  bytes: Buffer;
  /** Its text; null for a PDF pdf-parse cannot open, '' for a scan OCR could not read. */
  text: string | null;
  read: StatementsRead & { origin: 'TEXT' | 'OCR' };
  ocrConfidence: number | null;
  /** A scan whose text OCR could not recognise: why (OCR not installed, or it failed on the file). */
  ocrProblem: string | null;
}

const NOTHING: StatementsRead = { periods: [], values: {}, unrecognized: [], ambiguous: [] };

/**
 * Every file's bytes from the store and its text: pdf-parse's, or Tesseract's for a scan (no text
 * layer worth the name: application/document-text.ts).
 */
export async function readBatch(store: ObjectStore, files: readonly SubmittedFinancialFile[], ocr: OcrSettings, organizationId?: string): Promise<ReadFile[]> {
  return Promise.all(
    files.map(async (file): Promise<ReadFile> => {
      const bytes = await store.get(file.key);
      if (!bytes) throw new MissingStatementError(file.fileName);
      const read = await documentText(bytes, 'application/pdf', ocr, { owner: organizationId });
      if (read.kind === 'unreadable') return { file, bytes, text: null, read: { ...NOTHING, origin: 'TEXT' }, ocrConfidence: null, ocrProblem: null };
      if (read.kind === 'unrecognised') return { file, bytes, text: '', read: { ...NOTHING, origin: 'OCR' }, ocrConfidence: null, ocrProblem: read.reason };
      return { file, bytes, text: read.text, read: { ...readStatements(read.text), origin: read.source }, ocrConfidence: read.source === 'OCR' ? read.confidence : null, ocrProblem: null };
    }),
  );
}

/**
 * The batch as one analysis: the rules read every file, the model is asked only for the core lines
 * they left missing (and only when there are any), the statements' identities derive the rest.
 * A model that fails is recorded in the analysis; the rules' reading stands without it.
 */
export async function analyseBatch(files: readonly ReadFile[], registryDocumentIds: ReadonlyArray<string | null>, model: LanguageModel): Promise<FinancialAnalysis> {
  const reads = files.map((f) => f.read);
  let periods = consolidate(reads);
  const gaps = gapsOf(periods);
  let modelUse: ModelUse | null = null;
  if (gaps.length && periods.length) {
    const { values, use } = await askForGaps(
      model,
      gaps,
      files.map((f) => ({ fileName: f.file.fileName, text: f.text ?? '' })),
    );
    modelUse = use;
    if (values.length) periods = consolidate(reads, values satisfies ModelValue[]);
  }
  const analysed: AnalysedFile[] = files.map(({ file, text, read, ocrConfidence, ocrProblem }, i) => ({
    key: file.key,
    fileName: file.fileName,
    sha256: file.sha256,
    registryDocumentId: registryDocumentIds[i] ?? null,
    readable: text !== null,
    textSource: text === null || ocrProblem ? null : read.origin,
    ocrConfidence,
    ocrProblem,
    periods: read.periods,
    unrecognizedLines: read.unrecognized,
    ambiguousLines: read.ambiguous,
  }));
  return { periods, files: analysed, model: modelUse };
}
