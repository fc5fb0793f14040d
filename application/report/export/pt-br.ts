/**
 * Values of an export, typed, and how a Brazilian reader writes them. The PDF prints the text;
 * the spreadsheet keeps the type (a number, a date) and gives Excel a format that prints the same.
 */
import { formatBRL } from '../../../domain/shared/money.ts';

export type Value =
  | { kind: 'text'; text: string }
  | { kind: 'integer'; value: number }
  | { kind: 'number'; value: number }
  | { kind: 'money'; cents: number }
  /** A calendar day (birth, foundation, issue): no time and no zone, so no day shift. */
  | { kind: 'day'; year: number; month: number; day: number }
  | { kind: 'month'; year: number; month: number }
  | { kind: 'instant'; at: Date }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'empty' };

export const text = (value: string | null | undefined): Value => (value === null || value === undefined || value === '' ? { kind: 'empty' } : { kind: 'text', text: value });
export const integer = (value: number | null | undefined): Value => (value === null || value === undefined ? { kind: 'empty' } : { kind: 'integer', value });
export const instant = (iso: string | null | undefined): Value => (iso ? { kind: 'instant', at: new Date(iso) } : { kind: 'empty' });

const TIME_ZONE = 'America/Sao_Paulo';

const integers = new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 0 });
const ungrouped = new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 0, useGrouping: false });
const decimals = new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 2 });
const wallClock = new Intl.DateTimeFormat('en-US', {
  timeZone: TIME_ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** The date and time a clock in São Paulo shows at an instant. */
export function saoPauloClock(at: Date): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const parts = Object.fromEntries(wallClock.formatToParts(at).map((p) => [p.type, p.value]));
  return { year: Number(parts.year), month: Number(parts.month), day: Number(parts.day), hour: Number(parts.hour), minute: Number(parts.minute), second: Number(parts.second) };
}

const two = (n: number) => String(n).padStart(2, '0');

/** dd/mm/aaaa hh:mm in Brasília time. */
export function formatInstant(at: Date): string {
  const c = saoPauloClock(at);
  return `${two(c.day)}/${two(c.month)}/${c.year} ${two(c.hour)}:${two(c.minute)}`;
}

export function formatValue(value: Value): string {
  switch (value.kind) {
    case 'text':
      return value.text;
    case 'integer':
      // Grouped from five digits, as Brazilian style has it: a year stays 2025, not 2.025.
      return (Math.abs(value.value) >= 10_000 ? integers : ungrouped).format(value.value);
    case 'number':
      return decimals.format(value.value);
    case 'money':
      return formatBRL(value.cents);
    case 'day':
      return `${two(value.day)}/${two(value.month)}/${value.year}`;
    case 'month':
      return `${two(value.month)}/${value.year}`;
    case 'instant':
      return formatInstant(value.at);
    case 'boolean':
      return value.value ? 'Sim' : 'Não';
    case 'empty':
      return '-';
  }
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH = /^(\d{4})-(\d{2})$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * The type of a scalar of section data. Money is named by the data's own convention (fields
 * ending in Cents); days, months and instants by their ISO form.
 */
export function valueOf(key: string, raw: unknown, translate: (text: string) => string = (t) => t): Value {
  if (raw === null || raw === undefined || raw === '') return { kind: 'empty' };
  if (typeof raw === 'boolean') return { kind: 'boolean', value: raw };
  if (typeof raw === 'number') {
    if (/Cents$/.test(key) && Number.isInteger(raw)) return { kind: 'money', cents: raw };
    return Number.isInteger(raw) ? { kind: 'integer', value: raw } : { kind: 'number', value: raw };
  }
  if (typeof raw !== 'string') return { kind: 'text', text: String(raw) };
  let m = DAY.exec(raw);
  if (m) return { kind: 'day', year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  m = MONTH.exec(raw);
  if (m) return { kind: 'month', year: Number(m[1]), month: Number(m[2]) };
  if (TIMESTAMP.test(raw) && !Number.isNaN(Date.parse(raw))) return { kind: 'instant', at: new Date(raw) };
  return { kind: 'text', text: translate(raw) };
}
