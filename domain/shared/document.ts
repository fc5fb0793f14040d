import { DomainError } from './errors.ts';
import { Messages } from './messages.ts';

/** What kind of taxpayer number a document is: a person's CPF or a company's CNPJ. */
export type DocumentType = 'cpf' | 'cnpj';
export const DOCUMENT_TYPES: readonly DocumentType[] = ['cpf', 'cnpj'];

export const DOCUMENT_LENGTH: Record<DocumentType, number> = { cpf: 11, cnpj: 14 };

/** A CPF or CNPJ that passed its check digits, held as digits only. */
export interface TaxDocument {
  readonly type: DocumentType;
  readonly digits: string;
}

// Masks use dots, dashes and a slash; anything else is not a document.
const MASK_CHARACTERS = /[.\-/\s]/g;

/** The mod-11 check digit both CPF and CNPJ use, over `digits` with the given weights. */
function checkDigit(digits: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += Number(digits[i]) * weights[i]!;
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

const CPF_WEIGHTS_1 = [10, 9, 8, 7, 6, 5, 4, 3, 2];
const CPF_WEIGHTS_2 = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_WEIGHTS_1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const CNPJ_WEIGHTS_2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

/** The two check digits of a CPF base (9 digits) or CNPJ base (12 digits). */
export function checkDigitsOf(type: DocumentType, base: string): string {
  const [w1, w2] = type === 'cpf' ? [CPF_WEIGHTS_1, CPF_WEIGHTS_2] : [CNPJ_WEIGHTS_1, CNPJ_WEIGHTS_2];
  const first = checkDigit(base, w1);
  const second = checkDigit(base + first, w2);
  return `${first}${second}`;
}

export function hasValidCheckDigits(type: DocumentType, digits: string): boolean {
  if (!/^\d+$/.test(digits) || digits.length !== DOCUMENT_LENGTH[type]) return false;
  // Repeated digits pass the arithmetic but are never issued.
  if (/^(\d)\1+$/.test(digits)) return false;
  const baseLength = DOCUMENT_LENGTH[type] - 2;
  return checkDigitsOf(type, digits.slice(0, baseLength)) === digits.slice(baseLength);
}

export function stripMask(text: string): string {
  return text.replace(MASK_CHARACTERS, '');
}

/**
 * Parse a document as sent (masked or not) against the type the caller named. A length that
 * fits the other type is a type mistake (`Tipo de documento inválido.`); anything else that is
 * not a well-formed number with valid check digits is `Documento inválido.`.
 */
export function parseDocument(text: string, type: DocumentType): TaxDocument {
  const digits = stripMask(text);
  if (!/^\d+$/.test(digits)) throw new DomainError('invalid', Messages.invalidDocument);
  if (digits.length !== DOCUMENT_LENGTH[type]) {
    const fitsOther = DOCUMENT_TYPES.some((other) => other !== type && DOCUMENT_LENGTH[other] === digits.length);
    throw new DomainError('invalid', fitsOther ? Messages.invalidDocumentType : Messages.invalidDocument);
  }
  if (!hasValidCheckDigits(type, digits)) throw new DomainError('invalid', Messages.invalidDocument);
  return { type, digits };
}

/** 123.456.789-09 / 11.222.333/0001-81, for people reading exports. */
export function formatDocument(document: TaxDocument): string {
  const d = document.digits;
  return document.type === 'cpf' ? `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}` : `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`;
}
