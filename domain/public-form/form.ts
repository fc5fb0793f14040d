import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { hasValidCheckDigits, stripMask } from '../shared/document.ts';
import { PublicFormMessages as M } from './messages.ts';

/** The fields of the public form, as the page posts them (names in Portuguese, like the page). */
export const PUBLIC_FORM_FIELDS = ['nome', 'documento', 'email', 'telefone'] as const;
export type PublicFormField = (typeof PUBLIC_FORM_FIELDS)[number];
export type PublicFormValues = Record<PublicFormField, string>;

export interface PublicFormRequest {
  name: string;
  /** Digits only: 11 (CPF) or 14 (CNPJ), check digits verified. */
  document: string;
  email: string;
  /** E.164, or null when the person left it blank. */
  phone: string | null;
}

export type PublicFormErrors = Partial<Record<PublicFormField, string>>;

// Enough to refuse typos; whether the address exists only the messages will tell. The domain's
// labels exclude the dot, so no two quantifiers can trade characters: linear on any input.
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
/** RFC 5321's limit on a path, checked before the pattern reads the text. */
const MAX_EMAIL = 254;

/** The posted values, trimmed, absent ones empty (anything else in the body is dropped). */
export function formValues(body: unknown): PublicFormValues {
  const fields = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const text = (name: PublicFormField) => (typeof fields[name] === 'string' ? (fields[name] as string).trim() : '');
  return { nome: text('nome'), documento: text('documento'), email: text('email'), telefone: text('telefone') };
}

/**
 * Validates what the person typed. CPF or CNPJ decides whether the subject is a person or a
 * company; a phone without country code is taken as Brazilian (the form is in Portuguese).
 */
export function parsePublicForm(values: PublicFormValues): { request: PublicFormRequest } | { errors: PublicFormErrors } {
  const errors: PublicFormErrors = {};
  const name = values.nome.replace(/\s+/g, ' ');
  if (name.length < 2 || name.length > 120) errors.nome = M.nameRequired;
  const digits = stripMask(values.documento);
  const type = digits.length === 11 ? 'cpf' : digits.length === 14 ? 'cnpj' : null;
  if (!type || !/^\d+$/.test(digits) || !hasValidCheckDigits(type, digits)) errors.documento = M.documentInvalid;
  const email = values.email.toLowerCase();
  if (email.length > MAX_EMAIL || !EMAIL.test(email)) errors.email = M.emailInvalid;
  const parsed = values.telefone ? parsePhoneNumberFromString(values.telefone, 'BR') : undefined;
  if (values.telefone && !parsed?.isValid()) errors.telefone = M.phoneInvalid;
  if (Object.keys(errors).length) return { errors };
  return { request: { name, document: digits, email, phone: parsed?.number ?? null } };
}

const BRASILIA = 'America/Sao_Paulo';

/** The Brasília calendar day of an instant (YYYY-MM-DD): the daily ceiling's day. */
export const brasiliaDay = (at: Date) => at.toLocaleDateString('en-CA', { timeZone: BRASILIA });

/** Seconds from `at` to the next Brasília midnight (the Retry-After of a form switched off for the day). */
export function secondsToNextBrasiliaDay(at: Date): number {
  const [hours, minutes, seconds] = at.toLocaleTimeString('en-GB', { timeZone: BRASILIA, hour12: false }).split(':').map(Number) as [number, number, number];
  return 86_400 - ((hours % 24) * 3600 + minutes * 60 + seconds);
}
