import { Decimal } from 'decimal.js';
import type { AmortizationModel, DecimalRate } from '../pricing/terms.ts';

/**
 * The monthly rate of an offer: its decimal rate when it has one (bps cannot say 2% a month
 * exactly), else the spec's bps per year compounded down to a month.
 */
export function monthlyRate(rateBpsYear: number, rate: DecimalRate | null): Decimal {
  if (rate) {
    const value = new Decimal(rate.value).div(100);
    return rate.period === 'MONTH' ? value : value.plus(1).pow(new Decimal(1).div(12)).minus(1);
  }
  return new Decimal(rateBpsYear).div(10_000).plus(1).pow(new Decimal(1).div(12)).minus(1);
}

/**
 * The first installment in cents, without IOF or fees: PRICE is the constant payment
 * P·i / (1 − (1 + i)^−n); SAC's first is P/n + P·i (it falls afterwards). Half-up to the cent.
 * The pricing module's simulation is the full schedule; this is the headline an offer shows.
 */
export function firstInstallmentCents(amountCents: number, termMonths: number, model: AmortizationModel, i: Decimal): number {
  const principal = new Decimal(amountCents);
  if (model === 'SAC') return principal.div(termMonths).plus(principal.times(i)).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
  if (i.isZero()) return principal.div(termMonths).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
  const factor = new Decimal(1).minus(i.plus(1).pow(-termMonths));
  return principal.times(i).div(factor).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}

export interface ChosenTerms {
  amount: number;
  termMonths: number;
  monthlyRatePercent: number;
  yearlyRatePercent: number;
  installment: number;
  totalPayable: number;
  totalCostPercent: number;
}

const reais = (cents: Decimal) => cents.div(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber();
const percent = (rate: Decimal) => rate.times(100).toDecimalPlaces(4, Decimal.ROUND_HALF_UP).toNumber();

/**
 * The spec's `chosen.terms`: values in reais, rates and total cost in percent. Without IOF and
 * fees (the pricing module's simulation adds them): total cost here is the interest over the
 * amount for the whole term.
 */
export function chosenTerms(amountCents: number, termMonths: number, model: AmortizationModel, rateBpsYear: number, rate: DecimalRate | null): ChosenTerms {
  const i = monthlyRate(rateBpsYear, rate);
  const principal = new Decimal(amountCents);
  const installmentCents = firstInstallmentCents(amountCents, termMonths, model, i);
  // SAC pays interest on a balance falling linearly: P·i·(n + 1)/2 in all.
  const total = model === 'SAC' ? principal.plus(principal.times(i).times(termMonths + 1).div(2)) : new Decimal(installmentCents).times(termMonths);
  return {
    amount: reais(principal),
    termMonths,
    monthlyRatePercent: percent(i),
    yearlyRatePercent: percent(i.plus(1).pow(12).minus(1)),
    installment: reais(new Decimal(installmentCents)),
    totalPayable: reais(total),
    totalCostPercent: percent(total.div(principal).minus(1)),
  };
}
