import { consolidate, gapsOf, type ModelValue } from '../../domain/financial/analysis.ts';
import { readStatements, type StatementsRead } from '../../domain/financial/parse.ts';
import type { AnalysedFile, FinancialAnalysis, ModelUse } from '../../domain/financial/section.ts';
import { FinancialExtractionMessages } from '../../domain/financial/messages.ts';
import type { SubmittedFinancialFile } from '../../domain/report/financial-events.ts';
import type { LanguageModel } from '../llm/port.ts';
import type { ObjectStore } from '../object-store.ts';
import { pdfText } from '../registry/analysis/offline.ts';
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
  text: string | null;
  read: StatementsRead;
}

const NOTHING: StatementsRead = { periods: [], values: {}, unrecognized: [], ambiguous: [] };

/** Every file's bytes from the store and its text (pdf-parse; null for a PDF it cannot open). */
export async function readBatch(store: ObjectStore, files: readonly SubmittedFinancialFile[], organizationId?: string): Promise<ReadFile[]> {
  return Promise.all(
    files.map(async (file) => {
      const bytes = await store.get(file.key);
      if (!bytes) throw new MissingStatementError(file.fileName);
      const text = await pdfText(bytes, organizationId);
      return { file, bytes, text, read: text === null ? NOTHING : readStatements(text) };
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
    const { values, use } = await askForGaps(model, gaps, files.map((f) => ({ fileName: f.file.fileName, text: f.text ?? '' })));
    modelUse = use;
    if (values.length) periods = consolidate(reads, values satisfies ModelValue[]);
  }
  const analysed: AnalysedFile[] = files.map(({ file, text, read }, i) => ({
    key: file.key,
    fileName: file.fileName,
    sha256: file.sha256,
    registryDocumentId: registryDocumentIds[i] ?? null,
    readable: text !== null,
    periods: read.periods,
    unrecognizedLines: read.unrecognized,
    ambiguousLines: read.ambiguous,
  }));
  return { periods, files: analysed, model: modelUse };
}
