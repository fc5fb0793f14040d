import { Decimal } from 'decimal.js';
import type { DecimalRate } from './terms.ts';

/**
 * Rate arithmetic in decimal.js: rates are irrational after a compound conversion, so they are
 * carried with 30 significant digits and only rounded where the caller says (cents, CET's two
 * decimals). Rates here are fractions (0.02), never percent, unless a name says so.
 */
export const D = Decimal.clone({ precision: 30, rounding: Decimal.ROUND_HALF_UP });
export type Dec = InstanceType<typeof D>;

const ONE = new D(1);

export function yearlyFromMonthly(monthly: Dec): Dec {
  return ONE.plus(monthly).pow(12).minus(1);
}

/** A function of a string key memoized in a bounded map (the oldest entry goes when full). */
export function memoized<T>(size: number, compute: (key: string) => T): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      value = compute(key);
      if (cache.size >= size) cache.delete(cache.keys().next().value!);
      cache.set(key, value);
    }
    return value;
  };
}

const monthlyOfYearly = memoized(1024, (yearly) => ONE.plus(yearly).pow(new D(1).div(12)).minus(1));

/**
 * A 12th root in decimal.js costs ~0.5 ms; products and indexes repeat a handful of yearly rates,
 * so the conversions are memoized.
 */
export const monthlyFromYearly = (yearly: Dec): Dec => monthlyOfYearly(yearly.toString());

/** How a simulation shows its monthly rate; the yearly one also as a double, for CET's first guess. */
export interface RateFigures {
  monthlyPercent: string;
  yearlyPercent: string;
  rateBpsYear: number;
  yearlyF: number;
}

const figuresOf = memoized(1024, (monthlyText): RateFigures => {
  const monthly = new D(monthlyText);
  const yearly = yearlyFromMonthly(monthly);
  return { monthlyPercent: percent2(monthly), yearlyPercent: percent2(yearly), rateBpsYear: fractionToBps(yearly), yearlyF: yearly.toNumber() };
});

/** The monthly rate's figures, memoized: the 12th power and three roundings in decimal.js cost ~10 µs a call. */
export const rateFigures = (monthly: Dec): RateFigures => figuresOf(monthly.toString());

export const bpsToFraction = (bps: number): Dec => new D(bps).div(10_000);

/** The nearest integer bps per year (the spec's field) of a yearly fraction. */
export const fractionToBps = (yearly: Dec): number => yearly.times(10_000).toDecimalPlaces(0).toNumber();

/** A percent decimal string with its period, as a monthly fraction. */
export function monthlyOf(rate: DecimalRate): Dec {
  const fraction = new D(rate.value).div(100);
  return rate.period === 'MONTH' ? fraction : monthlyFromYearly(fraction);
}

/** Index plus spread, both yearly fractions, composed as banks quote "CDI + x% a.a.": (1+index)(1+spread)-1. */
export const composeYearly = (index: Dec, spread: Dec): Dec => ONE.plus(index).times(ONE.plus(spread)).minus(1);

/** A fraction as percent with two decimals, half up (how CET and rates are shown). */
export const percent2 = (fraction: Dec): string => fraction.times(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);

/** A plain percent decimal string ("1.99", "12.5"), at most 8 decimals, not negative. */
export const PERCENT_PATTERN = '^(?:0|[1-9][0-9]{0,3})(?:\\.[0-9]{1,8})?$';
