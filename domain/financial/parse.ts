import { matchLine, type LineKey } from './lines.ts';
import { normalizeText } from '../shared/text.ts';
import { isAmount, numericDates, parseAmount, parsePeriod, scaleHint, trailingPeriods } from './tokens.ts';

export type PeriodValues = Partial<Record<LineKey, number>>;

/** What the rules read from the text of one file. Amounts in cents, scale applied. */
export interface StatementsRead {
  /** Period ends (YYYY-MM-DD) in the order the file first printed them. */
  periods: string[];
  values: Record<string, PeriodValues>;
  /** Labels of lines with amounts that are no standard line (the model may read them). */
  unrecognized: string[];
  /** Standard lines whose cells could not be placed in periods (no header, fewer cells than columns). */
  ambiguous: string[];
}

/** Words of a title or a column header ("Exercício findo em", "Nota"), never of an account. */
const HEADER_WORDS = /\b(?:BALANCOS?|DEMONSTRAC\w*|EXERCICIOS?|PERIODOS?|ENCERRADOS?|FINDOS?|NOTAS?|DESCRICAO|CONTAS?|EM|ANOS?)\b/;
const HAS_LETTER = /[A-Z]/;
const HAS_DIGIT = /\d/;
const PAGE_MARK = /^-- \d+ OF \d+ --$/;
const MAX_LISTED = 50;

interface Segment {
  label: string;
  cells: string[];
}

const ACCOUNT_CODE = /^\d{1,2}$/;

/**
 * A line cut where a run of amounts is followed by words again: side-by-side layouts print
 * "Ativo circulante 1.000 900 Passivo circulante 500 400" on one line. Cells beyond the columns
 * that look like an account code ("... 900 2 Total do passivo") open the next label.
 */
function segments(tokens: readonly string[], cellsPerRow: number): Segment[] {
  const out: Segment[] = [];
  let label: string[] = [];
  let cells: string[] = [];
  for (const token of tokens) {
    const named = label.some((t) => HAS_LETTER.test(t));
    if (named && isAmount(token)) {
      cells.push(token);
      continue;
    }
    if (cells.some((c) => HAS_DIGIT.test(c))) {
      const codes: string[] = [];
      while (cellsPerRow > 0 && cells.length > cellsPerRow && ACCOUNT_CODE.test(cells.at(-1)!)) codes.unshift(cells.pop()!);
      out.push({ label: label.join(' '), cells });
      label = codes;
      cells = [];
    } else if (cells.length) {
      // Dashes inside a label ("Receita - vendas") are words, not empty cells.
      label.push(...cells);
      cells = [];
    }
    label.push(token);
  }
  out.push({ label: label.join(' '), cells });
  return out;
}

interface Header {
  periods: string[];
  /** The header names a notes column ("Nota"): each row may print a note number before its amounts. */
  notes: boolean;
}

/** A header names the columns: a full date, consecutive years, or one year after a title word. */
function headerOf(tokens: readonly string[]): Header | null {
  const run = trailingPeriods(tokens);
  if (!run) return null;
  const label = tokens.slice(0, run.start).join(' ');
  const years = run.periods.map((p) => Number(p.end.slice(0, 4)));
  const consecutive = years.length >= 2 && years.every((y, i) => i === 0 || Math.abs(y - years[i - 1]!) === 1);
  const titled = run.periods.length === 1 && (!HAS_LETTER.test(label) || HEADER_WORDS.test(label)) && !matchLine(label);
  // Side by side: "ATIVO 2024 PASSIVO 2024" repeats the columns of the left half.
  const repeated = tokens.slice(0, run.start).some((t) => parsePeriod(t)?.end === run.periods[0]!.end);
  if (!run.periods.some((p) => p.fullDate) && !consecutive && !titled && !repeated) return null;
  return { periods: [...new Set(run.periods.map((p) => p.end))], notes: /\bNOTAS?\b/.test(label) };
}

/**
 * pdf.js measures accented glyphs loosely and may glue a label to its first cell
 * ("RECEITA LIQUIDA5.500,00", "PATRIMONIO LIQUIDO- -"): such cells are cut off again.
 */
function unglue(line: string): string {
  return line.replace(/([A-Z])(?=\(?-?(?:\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?|\d+,\d{1,2})\)?(?:\s|$))/g, '$1 ').replace(/([A-Z])-(?=\s|$)/g, '$1 -');
}

const listOnce = (list: string[], text: string) => {
  if (list.length < MAX_LISTED && !list.includes(text)) list.push(text.slice(0, 120));
};

/**
 * Reads the balance sheet and income statement lines of a text (pdf-parse's getText: one printed
 * row per line, cells separated by spaces). Columns come from the last header seen; the scale from
 * the last "R$ mil"-like hint (it holds for the rest of the file). The first amount a period gets
 * for a line wins: the "Ativo circulante" heading and its "Total do ativo circulante" agree.
 */
export function readStatements(text: string): StatementsRead {
  const read: StatementsRead = { periods: [], values: {}, unrecognized: [], ambiguous: [] };
  let columns: string[] = [];
  let notes = false;
  let scale = 1;
  let pendingLabel: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = unglue(numericDates(normalizeText(raw)));
    if (!line || PAGE_MARK.test(line)) continue;
    scale = scaleHint(line) ?? scale;
    const tokens = line.split(' ').filter((t) => t !== 'R$');
    const header = headerOf(tokens);
    if (header) {
      columns = header.periods;
      notes = header.notes;
      for (const end of columns) if (!read.periods.includes(end)) read.periods.push(end);
      pendingLabel = null;
      continue;
    }
    const onlyCells = tokens.every(isAmount);
    const parts: Segment[] = onlyCells ? [{ label: pendingLabel ?? '', cells: tokens }] : segments(tokens, columns.length && columns.length + (notes ? 1 : 0));
    pendingLabel = parts.length === 1 && parts[0]!.cells.length === 0 ? line : null;
    for (const { label, cells } of parts) {
      if (!cells.length || !HAS_LETTER.test(label)) continue;
      const matched = matchLine(label);
      if (!matched) {
        listOnce(read.unrecognized, label);
        continue;
      }
      if (!columns.length || cells.length < columns.length) {
        listOnce(read.ambiguous, label);
        continue;
      }
      cells.slice(-columns.length).forEach((cell, i) => {
        const cents = parseAmount(cell, scale);
        const values = (read.values[columns[i]!] ??= {});
        if (cents !== null && values[matched.key] === undefined) values[matched.key] = matched.sign(cents);
      });
    }
  }
  return read;
}
