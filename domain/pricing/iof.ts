import type { EntityType } from './terms.ts';
import { D, memoized } from './rates.ts';

/**
 * IOF on credit operations (Decreto 6.306/2007, art. 7): a daily rate on each principal
 * amortization for the days it is outstanding (capped at 365) plus an additional rate on it
 * (art. 7, § 15). Rates are dated configuration: the operation's release date picks the row in
 * force. Sources and dates are in docs/pricing.md.
 */
export type IofBracket = 'PERSON' | 'COMPANY' | 'SIMPLES_NACIONAL';

export interface IofRate {
  bracket: IofBracket;
  /** First release date (YYYY-MM-DD) the row applies to. */
  from: string;
  /** Percent per day as a decimal string ("0.0082"). */
  dailyPercent: string;
  /** Percent on the amortization, once ("0.38"). */
  additionalPercent: string;
  source: string;
}

export const IOF_RATES: readonly IofRate[] = [
  { bracket: 'PERSON', from: '2008-01-03', dailyPercent: '0.0082', additionalPercent: '0.38', source: 'Decreto 6.339/2008' },
  { bracket: 'COMPANY', from: '2008-01-03', dailyPercent: '0.0041', additionalPercent: '0.38', source: 'Decreto 6.339/2008' },
  { bracket: 'COMPANY', from: '2025-05-23', dailyPercent: '0.0082', additionalPercent: '0.95', source: 'Decreto 12.466/2025' },
  { bracket: 'COMPANY', from: '2025-06-11', dailyPercent: '0.0082', additionalPercent: '0.38', source: 'Decreto 12.499/2025' },
  { bracket: 'SIMPLES_NACIONAL', from: '2008-01-03', dailyPercent: '0.00137', additionalPercent: '0.38', source: 'Decreto 6.306/2007, art. 7, VI' },
  { bracket: 'SIMPLES_NACIONAL', from: '2025-05-23', dailyPercent: '0.00274', additionalPercent: '0.95', source: 'Decreto 12.466/2025' },
  { bracket: 'SIMPLES_NACIONAL', from: '2025-06-11', dailyPercent: '0.00274', additionalPercent: '0.38', source: 'Decreto 12.499/2025' },
];

/** The Simples Nacional rate applies to operations up to this amount (art. 7, VI). */
export const SIMPLES_NACIONAL_LIMIT_CENTS = 3_000_000;
export const IOF_MAX_DAYS = 365;

/** Rates as integer parts per 10^8, so each installment's IOF is integer arithmetic on cents. */
export const IOF_SCALE = 100_000_000;

export interface IofRateInForce {
  bracket: IofBracket;
  dailyPercent: string;
  additionalPercent: string;
  source: string;
  dailyParts: number;
  additionalParts: number;
}

export function iofBracket(entityType: EntityType, simplesNacional: boolean, principalCents: number): IofBracket {
  if (entityType === 'PERSON') return 'PERSON';
  return simplesNacional && principalCents <= SIMPLES_NACIONAL_LIMIT_CENTS ? 'SIMPLES_NACIONAL' : 'COMPANY';
}

/** Memoized per text: the table has a handful of rates, and decimal.js per call was ~2 µs. */
const parts = memoized(64, (percentText): number => {
  const value = new D(percentText).div(100).times(IOF_SCALE);
  if (!value.isInteger()) throw new Error(`IOF rate ${percentText}% is finer than 1e-8`);
  return value.toNumber();
});

/** The row in force on the release date (ISO strings compare as dates). */
export function iofRateOn(table: readonly IofRate[], bracket: IofBracket, releaseDate: string): IofRateInForce {
  let found: IofRate | undefined;
  for (const row of table) if (row.bracket === bracket && row.from <= releaseDate && (!found || row.from > found.from)) found = row;
  if (!found) throw new Error(`no IOF rate for ${bracket} on ${releaseDate}`);
  const { dailyPercent, additionalPercent, source } = found;
  return { bracket, dailyPercent, additionalPercent, source, dailyParts: parts(dailyPercent), additionalParts: parts(additionalPercent) };
}

/** round_half_up(product / IOF_SCALE) of an exact integer product (at most 2^53). */
export const partsToCents = (product: number): number => Math.floor((product + IOF_SCALE / 2) / IOF_SCALE);

/** round_half_up(cents * parts / IOF_SCALE) for non-negative integers, exact (BigInt past 2^53). */
export function iofCents(cents: number, parts: number): number {
  const product = cents * parts;
  if (product <= Number.MAX_SAFE_INTEGER) return partsToCents(product);
  return Number((BigInt(cents) * BigInt(parts) + BigInt(IOF_SCALE / 2)) / BigInt(IOF_SCALE));
}

/**
 * IOF parts per 10^8 of each cent amortized `days` days after the release: the daily part plus
 * the additional. An amortization's IOF is iofCents(cents, parts), rounded half up.
 */
export const iofPartsPerCent = (days: number, rate: IofRateInForce): number => rate.dailyParts * Math.min(Math.max(days, 0), IOF_MAX_DAYS) + rate.additionalParts;
