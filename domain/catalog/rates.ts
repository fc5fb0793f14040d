import { Decimal } from 'decimal.js';
import type { DecimalRate } from '../pricing/terms.ts';

/** 10,000% a year: above any credit a lender may lawfully price, below any overflow. */
export const MAX_RATE_BPS_YEAR = 1_000_000;

/**
 * The spec's integer bps per year for a decimal rate: a monthly rate compounds over 12 months
 * (2% a month is 26.8242% a year, 2682 bps); a yearly rate is taken as it is. Half up.
 */
export function bpsYearOf(rate: DecimalRate): number {
  const fraction = new Decimal(rate.value).div(100);
  const yearly = rate.period === 'MONTH' ? fraction.plus(1).pow(12).minus(1) : fraction;
  return yearly.mul(10_000).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}
