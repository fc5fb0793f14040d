import { LINE_KEYS, STANDARD_LINES, type LineKey } from './lines.ts';
import type { PeriodValues, StatementsRead } from './parse.ts';

/**
 * One batch of statements consolidated into one analysis: periods newest first, each with its
 * standard lines in cents, where each value came from, the ratios and what is still missing.
 */
/** Where a value came from: the PDF's text layer, Tesseract's OCR of a scan, the statements' identities, the model. */
export type ValueSource = 'TEXT' | 'OCR' | 'DERIVED' | 'MODEL';

export interface Ratios {
  liquidezCorrente: number | null;
  liquidezSeca: number | null;
  liquidezGeral: number | null;
  endividamentoGeral: number | null;
  endividamentoSobrePL: number | null;
  margemBruta: number | null;
  margemOperacional: number | null;
  margemEbitda: number | null;
  margemLiquida: number | null;
  roe: number | null;
}
export type RatioKey = keyof Ratios;

export interface FinancialPeriod {
  /** The day the period ends, YYYY-MM-DD. */
  periodEnd: string;
  /** Standard lines in cents (expenses positive, a loss negative). */
  values: PeriodValues;
  sources: Partial<Record<LineKey, ValueSource>>;
  /** Indexes (in the batch) of the files that printed this period. */
  files: number[];
  ratios: Ratios;
  /** Standard lines neither read, derived nor filled by the model. */
  missing: LineKey[];
}

/** A value the model read for a line the rules left missing. */
export interface ModelValue {
  periodEnd: string;
  key: LineKey;
  cents: number;
}

/** Lines a credit analysis needs; the others (cash, inventories, EBITDA...) are read when printed. */
export const CORE_LINES: readonly LineKey[] = [
  'currentAssets',
  'nonCurrentAssets',
  'totalAssets',
  'currentLiabilities',
  'nonCurrentLiabilities',
  'equity',
  'netRevenue',
  'grossProfit',
  'operatingResult',
  'netIncome',
];

type Derivation = [LineKey, (v: PeriodValues) => number | undefined];
const sum = (...xs: Array<number | undefined>) => (xs.every((x) => x !== undefined) ? xs.reduce((a, b) => a! + b!, 0) : undefined);
const diff = (a: number | undefined, ...bs: Array<number | undefined>) => (a !== undefined && bs.every((b) => b !== undefined) ? bs.reduce((x, b) => x! - b!, a) : undefined);

/** Identities of the statements, tried in order until none adds a value. */
const DERIVATIONS: readonly Derivation[] = [
  ['totalAssets', (v) => sum(v.currentAssets, v.nonCurrentAssets) ?? v.totalLiabilitiesAndEquity],
  ['nonCurrentAssets', (v) => diff(v.totalAssets, v.currentAssets)],
  ['currentAssets', (v) => diff(v.totalAssets, v.nonCurrentAssets)],
  ['totalLiabilitiesAndEquity', (v) => v.totalAssets],
  ['nonCurrentLiabilities', (v) => diff(v.totalLiabilitiesAndEquity, v.currentLiabilities, v.equity)],
  ['currentLiabilities', (v) => diff(v.totalLiabilitiesAndEquity, v.nonCurrentLiabilities, v.equity)],
  ['equity', (v) => diff(v.totalLiabilitiesAndEquity, v.currentLiabilities, v.nonCurrentLiabilities)],
  ['grossProfit', (v) => diff(v.netRevenue, v.costOfSales)],
  ['netRevenue', (v) => sum(v.grossProfit, v.costOfSales)],
];

const ratio = (numerator: number | undefined, denominator: number | undefined): number | null =>
  numerator === undefined || denominator === undefined || denominator === 0 ? null : Math.round((numerator / denominator) * 10_000) / 10_000;

export function ratiosOf(v: PeriodValues): Ratios {
  const liabilities = sum(v.currentLiabilities, v.nonCurrentLiabilities);
  return {
    liquidezCorrente: ratio(v.currentAssets, v.currentLiabilities),
    liquidezSeca: ratio(diff(v.currentAssets, v.inventories), v.currentLiabilities),
    // A balance sheet without a "Realizável a longo prazo" line has none: counted as zero (the lower bound).
    liquidezGeral: ratio(sum(v.currentAssets, v.longTermReceivables ?? 0), liabilities),
    endividamentoGeral: ratio(liabilities, v.totalAssets),
    endividamentoSobrePL: ratio(liabilities, v.equity),
    margemBruta: ratio(v.grossProfit, v.netRevenue),
    margemOperacional: ratio(v.operatingResult, v.netRevenue),
    margemEbitda: ratio(v.ebitda, v.netRevenue),
    margemLiquida: ratio(v.netIncome, v.netRevenue),
    roe: ratio(v.netIncome, v.equity),
  };
}

function completed(periodEnd: string, read: PeriodValues, origins: Partial<Record<LineKey, ValueSource>>, model: PeriodValues, files: number[]): FinancialPeriod {
  const values: PeriodValues = { ...read };
  const sources: Partial<Record<LineKey, ValueSource>> = { ...origins };
  for (const [key, cents] of Object.entries(model) as Array<[LineKey, number]>) {
    if (values[key] !== undefined) continue;
    values[key] = cents;
    sources[key] = 'MODEL';
  }
  for (let changed = true; changed;) {
    changed = false;
    for (const [key, derive] of DERIVATIONS) {
      const cents = values[key] === undefined ? derive(values) : undefined;
      if (cents === undefined || !Number.isSafeInteger(cents)) continue;
      values[key] = cents;
      sources[key] = 'DERIVED';
      changed = true;
    }
  }
  const ordered = Object.fromEntries(LINE_KEYS.filter((k) => values[k] !== undefined).map((k) => [k, values[k]]));
  return { periodEnd, values: ordered, sources, files, ratios: ratiosOf(values), missing: LINE_KEYS.filter((k) => values[k] === undefined) };
}

/**
 * The files of a batch (in upload order) as one analysis: a period printed by several files takes
 * each line from the first file that printed it (a later file repeating the comparative column of
 * an earlier year does not overwrite it). Then the model's values fill lines still missing, and the
 * statements' identities derive what they can.
 */
export function consolidate(files: ReadonlyArray<StatementsRead & { origin?: 'TEXT' | 'OCR' }>, modelValues: readonly ModelValue[] = []): FinancialPeriod[] {
  const read = new Map<string, { values: PeriodValues; origins: Partial<Record<LineKey, ValueSource>>; files: number[] }>();
  files.forEach((file, index) => {
    for (const periodEnd of file.periods) {
      const values = file.values[periodEnd];
      if (!values || !Object.keys(values).length) continue;
      const period = read.get(periodEnd) ?? { values: {}, origins: {}, files: [] };
      for (const key of Object.keys(values) as LineKey[]) if (period.values[key] === undefined) period.origins[key] = file.origin ?? 'TEXT';
      period.values = { ...values, ...period.values };
      period.files.push(index);
      read.set(periodEnd, period);
    }
  });
  const model = new Map<string, PeriodValues>();
  for (const { periodEnd, key, cents } of modelValues) {
    if (!read.has(periodEnd) || !STANDARD_LINES[key] || !Number.isSafeInteger(cents)) continue;
    model.set(periodEnd, { ...model.get(periodEnd), [key]: cents });
  }
  return [...read.entries()]
    .sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0))
    .map(([periodEnd, { values, origins, files: indexes }]) => completed(periodEnd, values, origins, model.get(periodEnd) ?? {}, indexes));
}

/** What the rules left for the model: each period's core lines still missing. */
export function gapsOf(periods: readonly FinancialPeriod[]): Array<{ periodEnd: string; key: LineKey; label: string }> {
  return periods.flatMap((p) => p.missing.filter((k) => CORE_LINES.includes(k)).map((key) => ({ periodEnd: p.periodEnd, key, label: STANDARD_LINES[key].label })));
}
