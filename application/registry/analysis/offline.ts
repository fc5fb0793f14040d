import { assessText } from '../../../domain/registry/analysis.ts';
import type { AnalysisOutcome } from '../../../domain/registry/document-decider.ts';
import { KEYWORD_ANALYSER } from '../../../domain/registry/document-events.ts';
import type { OcrSettings } from '../../../platform/ocr.ts';
import { documentText, type DocumentText } from '../../document-text.ts';
import type { AnalysisInput, DocumentAnalyser } from './port.ts';

export const UNREADABLE_PDF = 'Não foi possível ler o PDF (arquivo corrompido ou protegido). Reprocesse ou envie outro arquivo.';

/**
 * An opinion on text Tesseract recognised says so: its reason ends with the OCR's mean
 * confidence, the event records the reading, and the score is no surer than the reading was.
 */
export function withReading(outcome: AnalysisOutcome, read: Extract<DocumentText, { kind: 'text' }>): AnalysisOutcome {
  if (outcome.kind !== 'opinion' || read.source !== 'OCR') return outcome;
  const percent = Math.round(read.confidence * 100);
  return {
    ...outcome,
    score: Math.round(outcome.score * read.confidence * 100) / 100,
    reason: `${outcome.reason ?? ''} Texto lido por OCR (confiança média ${percent}%).`.trim(),
    reading: { source: 'OCR', confidence: read.confidence, pages: read.pages },
  };
}

/** The offline analyser saying it could not read the file: nothing made up, so not a sandbox result. */
export const UNREAD_ANALYSER = 'offline-unread';

/** A scan or image no text could be recognised from: a person reads it, told why (OCR not installed, or it failed). */
export const unrecognisedOpinion = (input: AnalysisInput, reason: string): AnalysisOutcome => ({
  kind: 'opinion',
  type: input.forceType ?? input.expectedType ?? 'NAO_IDENTIFICADO',
  verdict: 'ANALISE_MANUAL',
  score: 0,
  reason,
  validUntil: null,
  provenance: { provider: UNREAD_ANALYSER, sandbox: false },
});

/**
 * The offline analyser: the document's text (the PDF's text layer, or Tesseract for scans and
 * images), then the keyword rules with the subject check (domain/registry/analysis.ts).
 */
export function offlineAnalyser(ocr: OcrSettings): DocumentAnalyser {
  return {
    async analyse(input: AnalysisInput): Promise<AnalysisOutcome> {
      const read = await documentText(input.bytes, input.mimeType, ocr, { owner: input.organizationId });
      if (read.kind === 'unreadable') return { kind: 'failure', reason: UNREADABLE_PDF };
      if (read.kind === 'unrecognised') return unrecognisedOpinion(input, read.reason);
      const outcome = withReading(assessText({ text: read.text, expectedType: input.expectedType, forceType: input.forceType, asOf: input.asOf, subject: input.subject }), read);
      // Classified by keywords: a sandbox opinion (docs/registry.md).
      return outcome.kind === 'opinion' ? { ...outcome, sandbox: true, provenance: { provider: KEYWORD_ANALYSER, sandbox: true } } : outcome;
    },
  };
}
