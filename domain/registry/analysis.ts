import type { ExpectedDocumentType } from '../collection/enums.ts';
import { classify } from './classification.ts';
import { normalizeText } from '../shared/text.ts';
import type { AnalysisOutcome } from './document-decider.ts';
import { checkSubject, type DocumentSubject } from './subject.ts';

/**
 * A text with at least this many words of three or more letters is a readable document: when no
 * rule matches it, it is out of scope (FORA_DE_ESCOPO); with fewer (stray characters of a scan), its
 * type is not identified (NAO_IDENTIFICADO).
 */
export const READABLE_WORDS = 3;

/** A proof of address counts for this many days after it was issued. */
export const PROOF_OF_ADDRESS_DAYS = 90;

export interface AssessInput {
  /** The text extracted from the file; empty for images and scans. */
  text: string;
  expectedType: ExpectedDocumentType | null;
  /** An operator's reprocess with forceType: taken as the type, no classification. */
  forceType: ExpectedDocumentType | null;
  /** ISO instant the analysis runs at (dates in the text are compared with its day). */
  asOf: string;
  /** The registry's subject, whom the text must name (subject.ts); null: not checked (no registry to compare with). */
  subject?: DocumentSubject | null;
}

const DATE = String.raw`(\d{2})/(\d{2})/(\d{4})`;
const VALID_UNTIL = new RegExp(String.raw`(?:VALID[AO] ATE|VALIDADE:?|VENCIMENTO:?)\s*${DATE}`);
const ISSUED_ON = new RegExp(String.raw`(?:EMITID[AO] EM|EMISSAO:?|DATA DE EMISSAO:?)\s*${DATE}`);

/** dd/mm/aaaa as YYYY-MM-DD, or null when it is no calendar date. */
function dateOf(match: RegExpExecArray | null): string | null {
  if (!match) return null;
  const [, day, month, year] = match;
  const iso = `${year}-${month}-${day}`;
  const parsed = new Date(`${iso}T00:00:00Z`);
  return Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== iso ? null : iso;
}

const addDays = (isoDate: string, days: number) => new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const br = (isoDate: string) => isoDate.split('-').reverse().join('/');

/**
 * The offline opinion on a document's text (rules in docs/registry.md): classify it, compare the
 * type with the one expected, read its validity, then check the text names the registry's subject.
 * Pure and deterministic.
 */
export function assessText(input: AssessInput): AnalysisOutcome {
  const text = normalizeText(input.text);
  if (!text) {
    const type = input.forceType ?? input.expectedType ?? 'NAO_IDENTIFICADO';
    return { kind: 'opinion', type, verdict: 'ANALISE_MANUAL', score: 0, reason: 'Nenhum texto legível no arquivo (imagem ou digitalização): é preciso análise manual.', validUntil: null };
  }
  const type = input.forceType ?? classify(text);
  if (!type && (text.match(/[A-Z]{3,}/g)?.length ?? 0) >= READABLE_WORDS) {
    const expected = input.expectedType ? `; era esperado ${input.expectedType}` : '';
    const reason = `O documento foi lido, mas não corresponde a nenhum dos tipos de documento aceitos (fora de escopo)${expected}.`;
    return { kind: 'opinion', type: 'FORA_DE_ESCOPO', verdict: 'INVALIDO', score: 0.7, reason, validUntil: null };
  }
  if (!type) {
    return { kind: 'opinion', type: 'NAO_IDENTIFICADO', verdict: 'INCONCLUSIVO', score: 0.3, reason: 'O tipo do documento não foi identificado pelo texto.', validUntil: null };
  }
  if (input.expectedType && type !== input.expectedType) {
    return { kind: 'opinion', type, verdict: 'INVALIDO', score: 0.9, reason: `O documento foi identificado como ${type}, mas era esperado ${input.expectedType}.`, validUntil: null };
  }
  const today = input.asOf.slice(0, 10);
  const issuedOn = type === 'COMPROVANTE_RESIDENCIA' ? dateOf(ISSUED_ON.exec(text)) : null;
  const validUntil = dateOf(VALID_UNTIL.exec(text)) ?? (issuedOn && addDays(issuedOn, PROOF_OF_ADDRESS_DAYS));
  if (validUntil && validUntil < today) {
    const reason = issuedOn ? `Comprovante de residência emitido em ${br(issuedOn)}, há mais de ${PROOF_OF_ADDRESS_DAYS} dias.` : `Documento vencido em ${br(validUntil)}.`;
    return { kind: 'opinion', type, verdict: 'INVALIDO', score: 0.95, reason, validUntil };
  }
  if (input.subject) {
    const kind = input.subject.document.length === 11 ? 'CPF' : 'CNPJ';
    const check = checkSubject(input.text, input.subject);
    if (check.kind === 'someone-else') {
      return {
        kind: 'opinion',
        type,
        verdict: 'INVALIDO',
        score: 0.9,
        reason: `O documento identificado como ${type} menciona outro ${kind}, não o do titular do cadastro: é de outra pessoa ou empresa.`,
        validUntil: null,
      };
    }
    if (check.kind === 'not-named') {
      return {
        kind: 'opinion',
        type,
        verdict: 'INCONCLUSIVO',
        score: 0.5,
        reason: `O documento identificado como ${type} não menciona o titular do cadastro (nem o ${kind} nem o nome): é preciso conferir.`,
        validUntil: null,
      };
    }
  }
  const score = input.expectedType || input.forceType ? 0.95 : 0.8;
  return { kind: 'opinion', type, verdict: 'VALIDO', score, reason: `Documento identificado como ${type}.`, validUntil };
}
