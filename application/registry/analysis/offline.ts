import { readPdfText } from '../../../platform/pdf-text.ts';
import { assessText } from '../../../domain/registry/analysis.ts';
import type { AnalysisOutcome } from '../../../domain/registry/document-decider.ts';
import type { AnalysisInput, DocumentAnalyser } from './port.ts';

export const UNREADABLE_PDF = 'Não foi possível ler o PDF (arquivo corrompido ou protegido). Reprocesse ou envie outro arquivo.';

/** The PDF's text without pdf-parse's page separators, or null when it cannot be read. `organizationId`: whose queue it waits in (platform/pdf-text.ts). */
export async function pdfText(bytes: Buffer, organizationId?: string): Promise<string | null> {
  const read = await readPdfText(bytes, organizationId);
  return read && read.text.replace(/-- \d+ of \d+ --/g, '');
}

/** Text by pdf-parse for PDFs, none for images (a person must look at them), then the offline rules. */
export const offlineAnalyser: DocumentAnalyser = {
  async analyse(input: AnalysisInput): Promise<AnalysisOutcome> {
    const text = input.mimeType === 'application/pdf' ? await pdfText(input.bytes, input.organizationId) : '';
    if (text === null) return { kind: 'failure', reason: UNREADABLE_PDF };
    return assessText({ text, expectedType: input.expectedType, forceType: input.forceType, asOf: input.asOf });
  },
};
