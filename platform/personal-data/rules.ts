import { createHmac } from 'node:crypto';
import type { Keyring } from '../../config/index.ts';

/** What an erased field reads as: strings become this text, objects `{}`, arrays `[]`, the rest null. */
export const ERASED = '***';

/**
 * Returned by `subjectOf` for an event built from an already erased state: its personal fields
 * are written erased, whatever they hold (a late source answer must not bring the data back).
 */
export const ERASED_SUBJECT = Symbol('erased subject');

/**
 * Which fields of which events hold whose personal data. A module declares one rule; a new
 * personal field is one more name in `fields`.
 */
export interface PersonalDataRule {
  /**
   * The natural key of the person the event is about (see documentSubject), null when the event
   * names none, ERASED_SUBJECT when it was built from erased data.
   */
  subjectOf(data: Record<string, unknown>): string | typeof ERASED_SUBJECT | null;
  /** Event type → the fields of its data that are personal. */
  fields: Readonly<Record<string, readonly string[]>>;
}

/**
 * A person as seen by one organization (each lender is the controller of what it holds, so one
 * lender's erasure request does not erase another's reports).
 */
export function documentSubject(organizationId: string, type: string, digits: string): string {
  return `${organizationId}:${type}:${digits}`;
}

/** The subject id stored beside keys and events: an HMAC with the pepper, so it reveals no document. */
export function subjectId(pepper: Keyring, naturalKey: string): string {
  return createHmac('sha256', pepper.primary.secret).update(naturalKey).digest('hex');
}

export function erasedValue(kind: string): unknown {
  return kind === 's' ? ERASED : kind === 'o' ? {} : kind === 'a' ? [] : null;
}

export function kindOf(value: unknown): string {
  return typeof value === 'string' ? 's' : Array.isArray(value) ? 'a' : typeof value === 'object' && value !== null ? 'o' : 'n';
}
