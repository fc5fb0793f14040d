import { DomainError } from '../shared/errors.ts';
import { dueDays, formatDay, parseDay, type HolidayCalendar } from './calendar.ts';
import { cet, type Cet } from './cet.ts';
import { iofBracket, iofOfAmortization, iofRateOn, type IofRate, type IofRateInForce } from './iof.ts';
import { PricingMessages } from './messages.ts';
import { bpsToFraction, composeYearly, D, fractionToBps, monthlyFromYearly, monthlyOf, percent2, yearlyFromMonthly, type Dec } from './rates.ts';
import { amortize, periodRates, type Amortization, type PeriodRates } from './schedule.ts';
import type { AmortizationModel, DecimalRate, EntityType, Fee, MarketIndexKey } from './terms.ts';

/** How a simulation is priced: a fixed rate (decimal with its period wins over bps) or an index plus a spread. */
export type RateInput =
  | { kind: 'FIXED'; rateBpsYear?: number; rate?: DecimalRate }
  | { kind: 'INDEXED'; index: MarketIndexKey; indexPercentYear: string; spreadBpsYear?: number; spread?: DecimalRate };

export interface SimulationInput {
  amountCents: number;
  termMonths: number;
  rate: RateInput;
  model: AmortizationModel;
  entityType: EntityType;
  simplesNacional: boolean;
  releaseDate: string;
  firstDueDate: string;
  fees: readonly Fee[];
  iof: { applies: boolean; financed: boolean };
  moveDueDatesToBusinessDay: boolean;
}

export interface Installment {
  number: number;
  dueDate: string;
  principalCents: number;
  interestCents: number;
  iofCents: number;
  balanceCents: number;
  amountCents: number;
}

export interface Simulation {
  model: AmortizationModel;
  rate: { monthlyPercent: string; yearlyPercent: string; rateBpsYear: number };
  iof: { bracket: string; dailyPercent: string; additionalPercent: string; source: string; totalCents: number; financed: boolean } | null;
  fees: Array<{ key: string; name: string; amountCents: number; financed: boolean }>;
  installments: Installment[];
  totals: {
    requestedCents: number;
    principalCents: number;
    netReleasedCents: number;
    interestCents: number;
    iofCents: number;
    feesCents: number;
    installmentsCents: number;
  };
  cet: Cet;
}

export const MAX_FIRST_PERIOD_DAYS = 180;

export function monthlyRateOf(rate: RateInput): Dec {
  if (rate.kind === 'FIXED') return rate.rate ? monthlyOf(rate.rate) : monthlyFromYearly(bpsToFraction(rate.rateBpsYear ?? 0));
  const spread = rate.spread ? yearlyFromMonthly(monthlyOf(rate.spread)) : bpsToFraction(rate.spreadBpsYear ?? 0);
  return monthlyFromYearly(composeYearly(new D(rate.indexPercentYear).div(100), spread));
}

function dayOf(iso: string, message: string): number {
  const day = parseDay(iso);
  if (day === null) throw new DomainError('invalid', message);
  return day;
}

/** IOF of each amortization into `out`; returns the total. */
function iofOf(schedule: Amortization, days: readonly number[], release: number, rate: IofRateInForce, out: number[]): number {
  let total = 0;
  for (let k = 0; k < out.length; k++) total += out[k] = iofOfAmortization(schedule.principal[k]!, days[k]! - release, rate);
  return total;
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/**
 * Financed IOF: the smallest principal P with P - IOF(P) >= base (the requested amount plus the
 * financed fees), so the customer receives what was asked. IOF is nearly proportional to P
 * (ratio k): Newton-like steps P -= g(P) / (1 - k) land within a cent or two, then single cents
 * settle it (IOF(P) moves by at most a cent per cent of P, so g never decreases).
 */
function grossUp(base: number, iofOfPrincipal: (principal: number) => number): number {
  const seen = new Map<number, number>();
  const g = (p: number): number => {
    let gap = seen.get(p);
    if (gap === undefined) seen.set(p, (gap = p - iofOfPrincipal(p) - base));
    return gap;
  };
  const slope = 1 + g(base) / base; // g(base) = -IOF(base)
  let principal = Math.ceil(base / slope);
  for (let i = 0; i < 5; i++) {
    const gap = g(principal);
    if (Math.abs(gap) <= 1) break;
    principal -= Math.round(gap / slope);
  }
  while (g(principal) < 0) principal++;
  while (g(principal - 1) >= 0) principal--;
  return principal;
}

/** Prices a credit operation: schedule, IOF, fees, totals and CET. Pure; holidays and IOF rates come in. */
export function simulate(input: SimulationInput, calendar: HolidayCalendar, iofTable: readonly IofRate[]): Simulation {
  const release = dayOf(input.releaseDate, PricingMessages.invalidReleaseDate);
  const firstDue = dayOf(input.firstDueDate, PricingMessages.invalidFirstDueDate);
  const firstPeriod = firstDue - release;
  if (firstPeriod < 1 || firstPeriod > MAX_FIRST_PERIOD_DAYS) throw new DomainError('invalid', PricingMessages.firstDueDateRange);

  const n = input.termMonths;
  const monthly = monthlyRateOf(input.rate);
  const rates: PeriodRates = periodRates(monthly, firstPeriod, input.termMonths);
  const days = dueDays(firstDue, n, input.moveDueDatesToBusinessDay, calendar);

  const fees = input.fees.map((fee) => ({
    key: fee.key,
    name: fee.name,
    amountCents: (fee.amountCents ?? 0) + (fee.percentBps ? Math.round((input.amountCents * fee.percentBps) / 10_000) : 0),
    financed: fee.financed,
  }));
  const financedFees = sum(fees.filter((fee) => fee.financed).map((fee) => fee.amountCents));
  const upfrontFees = sum(fees.filter((fee) => !fee.financed).map((fee) => fee.amountCents));

  const iofRate = input.iof.applies ? iofRateOn(iofTable, iofBracket(input.entityType, input.simplesNacional, input.amountCents), input.releaseDate) : null;
  const base = input.amountCents + financedFees;
  const iofs = new Array<number>(n).fill(0);
  const scratch: Amortization = { principal: new Array<number>(n), interest: new Array<number>(n) };
  const principal = iofRate && input.iof.financed ? grossUp(base, (p) => iofOf(amortize(input.model, p, n, rates, scratch), days, release, iofRate, iofs)) : base;
  const schedule = amortize(input.model, principal, n, rates, scratch);
  const iofTotal = iofRate ? iofOf(schedule, days, release, iofRate, iofs) : 0;
  const netReleased = input.amountCents - upfrontFees - (iofRate && !input.iof.financed ? iofTotal : 0);
  if (netReleased <= 0) throw new DomainError('invalid', PricingMessages.feesExceedAmount);

  const installments = new Array<Installment>(n);
  const flows = new Array<{ cents: number; days: number }>(n);
  let balance = principal;
  let interestTotal = 0;
  for (let k = 0; k < n; k++) {
    const principalCents = schedule.principal[k]!;
    const interestCents = schedule.interest[k]!;
    balance -= principalCents;
    interestTotal += interestCents;
    installments[k] = { number: k + 1, dueDate: formatDay(days[k]!), principalCents, interestCents, iofCents: iofs[k]!, balanceCents: balance, amountCents: principalCents + interestCents };
    flows[k] = { cents: principalCents + interestCents, days: days[k]! - release };
  }
  const yearly = yearlyFromMonthly(monthly);
  return {
    model: input.model,
    rate: { monthlyPercent: percent2(monthly), yearlyPercent: percent2(yearly), rateBpsYear: fractionToBps(yearly) },
    iof: iofRate && {
      bracket: iofRate.bracket,
      dailyPercent: iofRate.dailyPercent,
      additionalPercent: iofRate.additionalPercent,
      source: iofRate.source,
      totalCents: iofTotal,
      financed: input.iof.financed,
    },
    fees,
    installments,
    totals: {
      requestedCents: input.amountCents,
      principalCents: principal,
      netReleasedCents: netReleased,
      interestCents: interestTotal,
      iofCents: iofTotal,
      feesCents: financedFees + upfrontFees,
      installmentsCents: principal + interestTotal,
    },
    cet: cet(netReleased, flows, yearly.toNumber()),
  };
}
