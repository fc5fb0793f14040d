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

/**
 * The spec's `chosen.terms`: values in reais, rates and costs in percent. Since the choice is
 * priced by the pricing module's simulation, installment and totals carry IOF and fees, and the
 * CET is the resolution's. `iof`, `fees`, the CET and the dates are null only on choices recorded
 * before that (read back with the headline formula: see `headlineTerms`).
 */
export interface ChosenTerms {
  amount: number;
  termMonths: number;
  monthlyRatePercent: number;
  yearlyRatePercent: number;
  /** The first installment. */
  installment: number;
  /** The sum of the installments: everything the customer pays back. */
  totalPayable: number;
  /** What the operation costs over the amount asked: (totalPayable - net released) / amount. */
  totalCostPercent: number;
  /** The amount the customer receives: the amount less upfront IOF and fees. */
  netReleased: number;
  iof: number | null;
  iofFinanced: boolean | null;
  fees: number | null;
  cetMonthlyPercent: number | null;
  cetYearlyPercent: number | null;
  releaseDate: string | null;
  firstDueDate: string | null;
}

const reais = (cents: Decimal) => cents.div(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber();
const percent = (rate: Decimal) => rate.times(100).toDecimalPlaces(4, Decimal.ROUND_HALF_UP).toNumber();

const ratePercents = (i: Decimal) => ({ monthlyRatePercent: percent(i), yearlyRatePercent: percent(i.plus(1).pow(12).minus(1)) });

/**
 * The headline terms, without IOF and fees: what choices recorded before the simulation was
 * stored showed (their OfferChosen has no terms, and the fold rebuilds these), and the offer
 * page's live estimate. Total cost is the interest over the amount for the whole term.
 */
export function headlineTerms(amountCents: number, termMonths: number, model: AmortizationModel, rateBpsYear: number, rate: DecimalRate | null): ChosenTerms {
  const i = monthlyRate(rateBpsYear, rate);
  const principal = new Decimal(amountCents);
  const installmentCents = firstInstallmentCents(amountCents, termMonths, model, i);
  // SAC pays interest on a balance falling linearly: P·i·(n + 1)/2 in all.
  const total =
    model === 'SAC'
      ? principal.plus(
          principal
            .times(i)
            .times(termMonths + 1)
            .div(2),
        )
      : new Decimal(installmentCents).times(termMonths);
  return {
    amount: reais(principal),
    termMonths,
    ...ratePercents(i),
    installment: reais(new Decimal(installmentCents)),
    totalPayable: reais(total),
    totalCostPercent: percent(total.div(principal).minus(1)),
    netReleased: reais(principal),
    iof: null,
    iofFinanced: null,
    fees: null,
    cetMonthlyPercent: null,
    cetYearlyPercent: null,
    releaseDate: null,
    firstDueDate: null,
  };
}

/** What chosenTerms needs of the pricing module's simulation (domain/pricing/simulate.ts). */
export interface PricedChoice {
  installments: ReadonlyArray<{ amountCents: number; dueDate: string }>;
  iof: { totalCents: number; financed: boolean } | null;
  totals: { netReleasedCents: number; feesCents: number; installmentsCents: number };
  cet: { yearPercent: string; monthPercent: string };
}

/** The chosen terms from the simulation of the choice at the offer's rate. */
export function chosenTerms(choice: { amountCents: number; termMonths: number; rateBpsYear: number; rate: DecimalRate | null; releaseDate: string }, simulation: PricedChoice): ChosenTerms {
  const { totals } = simulation;
  const amount = new Decimal(choice.amountCents);
  return {
    amount: reais(amount),
    termMonths: choice.termMonths,
    ...ratePercents(monthlyRate(choice.rateBpsYear, choice.rate)),
    installment: reais(new Decimal(simulation.installments[0]!.amountCents)),
    totalPayable: reais(new Decimal(totals.installmentsCents)),
    totalCostPercent: percent(new Decimal(totals.installmentsCents - totals.netReleasedCents).div(amount)),
    netReleased: reais(new Decimal(totals.netReleasedCents)),
    iof: reais(new Decimal(simulation.iof?.totalCents ?? 0)),
    iofFinanced: simulation.iof?.financed ?? false,
    fees: reais(new Decimal(totals.feesCents)),
    cetMonthlyPercent: Number(simulation.cet.monthPercent),
    cetYearlyPercent: Number(simulation.cet.yearPercent),
    releaseDate: choice.releaseDate,
    firstDueDate: simulation.installments[0]!.dueDate,
  };
}

/**
 * The dates a choice is priced on: released the day it is made (in Brasília), first due one
 * month later on the same day (the month's last day when that day does not exist).
 */
export function choiceDates(at: string): { releaseDate: string; firstDueDate: string } {
  const releaseDate = new Date(at).toLocaleDateString('en-CA', { timeZone: 'America/Sao_Paulo' });
  const [y, m, d] = releaseDate.split('-').map(Number) as [number, number, number];
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const firstDueDate = new Date(Date.UTC(y, m, Math.min(d, last))).toISOString().slice(0, 10);
  return { releaseDate, firstDueDate };
}
