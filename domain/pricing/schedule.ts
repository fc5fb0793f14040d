import { D, type Dec } from './rates.ts';
import { iofCents, partsToCents } from './iof.ts';
import type { AmortizationModel } from './terms.ts';

/**
 * Principal and interest of each installment, in integer cents. Rounding: every cent amount is
 * rounded half up; the last installment takes the whole remaining balance, so it absorbs the
 * rounding residue and the balance ends at exactly 0.
 *
 * Interest of period k is balance_{k-1} x rate_k. Every period after the first is one month at
 * the monthly rate. The first runs from release to the first due date: one calendar month and
 * the days beyond (or short of) it, charged (1+i)^(1 + extra days/30) - 1, so a first due date
 * exactly a month after the release is one plain period (the textbook's and every lender's
 * calculator's PMT), one further away costs its extra days and a nearer one saves its missing days.
 *
 * Speed: a 360-month schedule is computed in doubles, and a product is recomputed in decimal.js
 * only when it falls so close to a half cent that the double could round it the wrong way.
 */
export interface PeriodRates {
  monthly: Dec;
  first: Dec;
  monthlyF: number;
  firstF: number;
  /** Present value of 1 paid at every due date, in doubles (PRICE's installment divides by it). */
  annuityF: number;
  annuity: () => Dec;
}

/**
 * The first period's rate is computed in doubles (a fractional power in decimal.js costs
 * ~0.2 ms, the whole schedule's budget): 16 significant digits, so a cent is off only when an
 * interest product sits within 1e-13 of a half cent, which centsTimes then settles in decimal.
 */
export function periodRates(monthly: Dec, monthlyF: number, firstPeriodExtraDays: number, n: number): PeriodRates {
  const first = firstPeriodExtraDays === 0 ? monthly : new D(Math.pow(1 + monthlyF, 1 + firstPeriodExtraDays / 30) - 1);
  const firstF = first.toNumber();
  const annuityF = (monthlyF === 0 ? n : (1 - Math.pow(1 + monthlyF, -n)) / monthlyF) * ((1 + monthlyF) / (1 + firstF));
  const one = new D(1);
  const annuity = () => {
    const v = monthly.isZero() ? new D(n) : one.minus(one.plus(monthly).pow(-n)).div(monthly);
    // v discounts the first payment one month; the first period really lasts `first`.
    return v.times(one.plus(monthly)).div(one.plus(first));
  };
  return { monthly, first, monthlyF, firstF, annuityF, annuity };
}

const nearHalf = (x: number): boolean => Math.abs(x - Math.floor(x) - 0.5) <= Math.max(1e-6, x * 1e-13);

/** round_half_up(cents x rate) in decimal.js, for a product too near a half cent for its double. */
const exactCentsTimes = (cents: number, rate: Dec): number => new D(cents).times(rate).toDecimalPlaces(0).toNumber();

/** A schedule in integer cents, row by row, with each amortization's IOF (0 when none applies). */
export interface Schedule {
  principal: Float64Array;
  interest: Float64Array;
  iof: Float64Array;
}

export const newSchedule = (n: number): Schedule => ({ principal: new Float64Array(n), interest: new Float64Array(n), iof: new Float64Array(n) });

/** PRICE's level installment: principal / present value of 1 a period, rounded half up. */
function priceInstallment(principalCents: number, rates: PeriodRates): number {
  const x = principalCents / rates.annuityF;
  if (!nearHalf(x)) return Math.round(x);
  return new D(principalCents).div(rates.annuity()).toDecimalPlaces(0).toNumber();
}

/**
 * Overwrites `into` with the schedule of `principalCents` and each amortization's IOF
 * (`iofParts`: iofPartsPerCent of each due date, zeros when no IOF applies); returns the IOF
 * total. One loop for both: a row's IOF is off the balance's chain of dependent roundings, so it
 * costs little beside it (the financed-IOF search runs this several times on the same arrays).
 */
export function scheduleWithIof(model: AmortizationModel, principalCents: number, n: number, rates: PeriodRates, iofParts: Float64Array, into: Schedule): number {
  const { principal, interest, iof } = into;
  const price = model === 'PRICE';
  const level = price ? priceInstallment(principalCents, rates) : Math.round(principalCents / n);
  const { monthlyF, monthly } = rates;
  // The balance never grows, so no product exceeds principal x the larger rate: one tolerance
  // for the loop, as wide as nearHalf's widest (a wider one only sends more products to
  // decimal.js, never to a different cent).
  const tolerance = 0.5 - Math.max(1e-6, principalCents * Math.max(rates.firstF, monthlyF) * 1e-13);
  // Every amortization is at most the principal and the parts grow with the days: when principal
  // x the last parts fits a double exactly, the IOF needs no BigInt check per row.
  const exactInDoubles = principalCents * (iofParts[n - 1] ?? 0) <= Number.MAX_SAFE_INTEGER;
  let rateF = rates.firstF;
  let rate = rates.first;
  let balance = principalCents;
  let iofTotal = 0;
  for (let k = 0; k < n; k++) {
    const x = balance * rateF;
    // floor(x + 0.5), not Math.round: the same cent for every x the test below lets through (the
    // addition's error is far inside the tolerance), and ~10% less CPU per 360-month simulation.
    let owed = Math.floor(x + 0.5);
    if (Math.abs(x - owed) >= tolerance) owed = exactCentsTimes(balance, rate);
    let amortization = price ? level - owed : level;
    if (amortization < 0) amortization = 0;
    if (amortization > balance || k === n - 1) amortization = balance;
    interest[k] = owed;
    principal[k] = amortization;
    balance -= amortization;
    const tax = exactInDoubles ? partsToCents(amortization * iofParts[k]!) : iofCents(amortization, iofParts[k]!);
    iof[k] = tax;
    iofTotal += tax;
    rateF = monthlyF;
    rate = monthly;
  }
  return iofTotal;
}
