import type { Config } from '../config/index.ts';
import { recognise, type OcrSettings } from '../platform/ocr.ts';
import { readPdfText } from '../platform/pdf-text.ts';

/**
 * The text of an uploaded document, for the registry's analysis and the financial statements'
 * extraction alike: a PDF's text layer (pdf-parse), and where there is none worth reading (a
 * scan) or the file is an image, Tesseract's OCR (platform/ocr.ts). Which it was travels with the
 * text, so every opinion and extraction can say it came from OCR and how sure Tesseract was.
 */
export type DocumentText =
  | { kind: 'text'; text: string; source: 'TEXT' }
  /** `confidence`: Tesseract's mean word confidence (0 to 1); `pages`: pages read. */
  | { kind: 'text'; text: string; source: 'OCR'; confidence: number; pages: number }
  /** A PDF pdf.js cannot open (corrupt, protected, too slow or too large for its thread). */
  | { kind: 'unreadable' }
  /** A scan or an image no text could be recognised from: OCR unavailable here, or it failed on this file. `reason` says which. */
  | { kind: 'unrecognised'; reason: string };

export const ocrSettingsFor = (
  config: Pick<Config, 'OCR_TESSERACT_PATH' | 'OCR_PDFTOPPM_PATH' | 'OCR_LANGUAGE' | 'OCR_DPI' | 'OCR_MAX_PAGES' | 'OCR_TIMEOUT_MS' | 'OCR_MEMORY_MB' | 'OCR_MAX_BYTES' | 'OCR_CONCURRENCY'>,
): OcrSettings => ({
  tesseract: config.OCR_TESSERACT_PATH,
  pdftoppm: config.OCR_PDFTOPPM_PATH,
  language: config.OCR_LANGUAGE,
  dpi: config.OCR_DPI,
  maxPages: config.OCR_MAX_PAGES,
  timeoutMs: config.OCR_TIMEOUT_MS,
  memoryMb: config.OCR_MEMORY_MB,
  maxBytes: config.OCR_MAX_BYTES,
  concurrency: config.OCR_CONCURRENCY,
});

/** The PDF's text without pdf-parse's page separators, or null when it cannot be read. `owner`: whose queue it waits in (platform/pdf-text.ts). */
export async function pdfText(bytes: Buffer, owner?: string): Promise<string | null> {
  const read = await readPdfText(bytes, owner);
  return read && read.text.replace(/-- \d+ of \d+ --/g, '');
}

/** A text layer with no word of three letters is a scan's (empty, or stray marks of a stamp). */
export const isScanText = (text: string) => !/\p{L}{3}/u.test(text);

/**
 * The document's text: a PDF's own text layer unless `wantsOcr` says it is not enough (default: a
 * scan's, isScanText), then OCR; an image always by OCR.
 */
export async function documentText(bytes: Buffer, mimeType: string, ocr: OcrSettings, options: { owner?: string; wantsOcr?: (text: string) => boolean } = {}): Promise<DocumentText> {
  if (mimeType === 'application/pdf') {
    const text = await pdfText(bytes, options.owner);
    if (text === null) return { kind: 'unreadable' };
    if (!(options.wantsOcr ?? isScanText)(text)) return { kind: 'text', text, source: 'TEXT' };
  }
  const recognised = await recognise(bytes, mimeType, ocr);
  if (recognised.kind !== 'text') return { kind: 'unrecognised', reason: recognised.reason };
  return { kind: 'text', text: recognised.text, source: 'OCR', confidence: recognised.confidence, pages: recognised.pages };
}
