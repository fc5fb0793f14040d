import { DomainError } from '../shared/errors.ts';
import { OperationMessages } from './messages.ts';

/** YYYY-MM-DD naming a day that exists (2026-02-30 does not): the lender's issue or cancel date. */
export function checkCloseDate(date: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  const parsed = new Date(Date.UTC(year, month - 1, day));
  const exists = match !== null && year >= 1900 && parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day;
  if (!exists) throw new DomainError('invalid', OperationMessages.invalidCloseDate);
  return date;
}
