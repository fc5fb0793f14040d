import { PDFParse } from '../../../platform/pdf.ts';
import { assessText } from '../../../domain/registry/analysis.ts';
import type { AnalysisOutcome } from '../../../domain/registry/document-decider.ts';
import type { AnalysisInput, DocumentAnalyser } from './port.ts';

export const UNREADABLE_PDF = 'Não foi possível ler o PDF (arquivo corrompido ou protegido). Reprocesse ou envie outro arquivo.';

export async function pdfText(bytes: Buffer): Promise<string | null> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    return (await parser.getText()).text.replace(/-- \d+ of \d+ --/g, '');
  } catch {
    return null;
  } finally {
    await parser.destroy();
  }
}

/** A one-page PDF with no text (hand-written bytes, so pdf-lib is not loaded at run time). */
const EMPTY_PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj ' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);

/** Text by pdf-parse for PDFs, none for images (a person must look at them), then the offline rules. */
export const offlineAnalyser: DocumentAnalyser = {
  // pdf-parse loads pdf.js and its worker module on the first parse: seconds on a busy machine,
  // which the first document of the process would otherwise wait for.
  async warmUp() {
    await pdfText(EMPTY_PDF);
  },
  async analyse(input: AnalysisInput): Promise<AnalysisOutcome> {
    const text = input.mimeType === 'application/pdf' ? await pdfText(input.bytes) : '';
    if (text === null) return { kind: 'failure', reason: UNREADABLE_PDF };
    return assessText({ text, expectedType: input.expectedType, forceType: input.forceType, asOf: input.asOf });
  },
};
