/**
 * The cells of a statement line: amounts in the Brazilian format and period headers. Pure string
 * work, applied to text already normalized (upper case, no accents).
 */

/** 1.234.567,89 · 1234567,89 · (1.234) · -1.234 · 1.234- ; a dash alone is a zero. */
const AMOUNT = /^(-|\()?(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d{1,2}))?(\)|-)?$/;
const DASHES: ReadonlySet<string> = new Set(['-', '–', '—', '--']);

/**
 * The amount of one cell in cents, times the statement's scale (1, 1 000 for "R$ mil", 1 000 000 for
 * millions); null when the cell is not an amount or the result leaves the safe integer range.
 */
export function parseAmount(token: string, scale: number): number | null {
  if (DASHES.has(token)) return 0;
  const match = AMOUNT.exec(token);
  if (!match) return null;
  const [, open, whole, fraction = '', close] = match;
  if ((open === '(') !== (close === ')')) return null;
  const negative = open !== undefined || close !== undefined;
  const cents = Number(whole!.replace(/\./g, '')) * 100 + Number(fraction.padEnd(2, '0'));
  const scaled = cents * scale;
  if (!Number.isSafeInteger(scaled)) return null;
  return negative && scaled !== 0 ? -scaled : scaled;
}

/** Whether a cell reads as an amount (or a dash). */
export const isAmount = (token: string): boolean => parseAmount(token, 1) !== null;

const MONTHS = ['JANEIRO', 'FEVEREIRO', 'MARCO', 'ABRIL', 'MAIO', 'JUNHO', 'JULHO', 'AGOSTO', 'SETEMBRO', 'OUTUBRO', 'NOVEMBRO', 'DEZEMBRO'];
const SHORT_MONTHS = MONTHS.map((m) => m.slice(0, 3));

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (year: number, month: number) => [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
const pad = (n: number) => String(n).padStart(2, '0');
const PLAUSIBLE_YEAR = (year: number) => year >= 1990 && year <= 2099;

function isoDay(year: number, month: number, day: number): string | null {
  if (!PLAUSIBLE_YEAR(year) || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  return `${year}-${pad(month)}-${pad(day)}`;
}

/** "31 de dezembro de 2024" and "dez/2024" written as 31/12/2024 and 31/12/2024, so one token each. */
export function numericDates(text: string): string {
  return text
    .replace(new RegExp(`\\b(\\d{1,2}) DE (${MONTHS.join('|')}) DE (\\d{4})\\b`, 'g'), (_, d: string, m: string, y: string) => `${pad(Number(d))}/${pad(MONTHS.indexOf(m) + 1)}/${y}`)
    .replace(new RegExp(`\\b(${SHORT_MONTHS.join('|')})[/.-](\\d{4})\\b`, 'g'), (_, m: string, y: string) => {
      const month = SHORT_MONTHS.indexOf(m) + 1;
      return `${pad(daysIn(Number(y), month))}/${pad(month)}/${y}`;
    });
}

export interface PeriodToken {
  /** The day the period ends, YYYY-MM-DD (a bare year ends on 31 December). */
  end: string;
  /** Written as a full date (never mistaken for an amount). */
  fullDate: boolean;
}

/** 31/12/2024 · 31.12.2024 · 12/2024 (end of month) · 2024 (31 December); null otherwise. */
export function parsePeriod(token: string): PeriodToken | null {
  let match = /^(\d{2})[/.](\d{2})[/.](\d{4})$/.exec(token);
  if (match) {
    const end = isoDay(Number(match[3]), Number(match[2]), Number(match[1]));
    return end ? { end, fullDate: true } : null;
  }
  match = /^(\d{2})\/(\d{4})$/.exec(token);
  if (match) {
    const year = Number(match[2]);
    const month = Number(match[1]);
    const end = month >= 1 && month <= 12 ? isoDay(year, month, daysIn(year, month)) : null;
    return end ? { end, fullDate: true } : null;
  }
  match = /^(\d{4})$/.exec(token);
  if (match && PLAUSIBLE_YEAR(Number(match[1]))) return { end: `${match[1]}-12-31`, fullDate: false };
  return null;
}

/** Words that join period cells in a header: "2024 e 2023", "01/01/2024 a 31/12/2024". */
const JOINERS: ReadonlySet<string> = new Set(['E', 'A', 'ATE', '-']);
const RANGE: ReadonlySet<string> = new Set(['A', 'ATE', '-']);

/**
 * The trailing run of period cells of a line (ranges collapse to their end), and where it starts;
 * null when the line does not end in a period.
 */
export function trailingPeriods(tokens: readonly string[]): { periods: PeriodToken[]; start: number } | null {
  const found: PeriodToken[] = [];
  let i = tokens.length - 1;
  let start = tokens.length;
  while (i >= 0) {
    const period = parsePeriod(tokens[i]!);
    if (period) {
      found.unshift(period);
      start = i;
      i -= 1;
      continue;
    }
    if (found.length && JOINERS.has(tokens[i]!) && i > 0 && parsePeriod(tokens[i - 1]!)) {
      // "01/01/2024 a 31/12/2024": the start of the range is not a column of its own.
      if (RANGE.has(tokens[i]!)) {
        start = i - 1;
        i -= 2;
      } else i -= 1;
      continue;
    }
    break;
  }
  return found.length ? { periods: found, start } : null;
}

/** "Em R$ mil", "(em milhares de reais)", "R$ MM": the scale a statement's amounts are printed in. */
export function scaleHint(line: string): number | null {
  if (/\b(?:MILHOES|MILHAO)\b|R\$ ?MM\b|R\$ ?MI\b/.test(line)) return 1_000_000;
  if (/\bMILHARES\b|R\$ ?MIL\b|\bEM MIL\b|\(MIL\)/.test(line)) return 1_000;
  if (/\bEM REAIS\b|\bVALORES EM R\$\s*$|\(EM R\$\)|EM R\$ 1,00/.test(line)) return 1;
  return null;
}
