import { DomainError } from '../shared/errors.ts';
import { dueDates, oneMonthAfter, parseDay, type HolidayCalendar } from './calendar.ts';
import { cet, type Cet } from './cet.ts';
import { grossUp, SacIof, type IofOfPrincipal } from './gross-up.ts';
import { iofBracket, iofPartsPerCent, iofRateOn, type IofRate } from './iof.ts';
import { PricingMessages } from './messages.ts';
import { bpsToFraction, composeYearly, D, memoized, monthlyFromYearly, monthlyOf, rateFigures, yearlyFromMonthly, type Dec, type RateFigures } from './rates.ts';
import { newSchedule, periodRates, scheduleWithIof, type PeriodRates, type Schedule } from './schedule.ts';
import type { AmortizationModel, DecimalRate, EntityType, Fee, MarketIndexKey } from './terms.ts';

/** How a simulation is priced: a fixed rate (decimal with its period wins over bps) or an index plus a spread. */
export type RateInput =
  { kind: 'FIXED'; rateBpsYear?: number; rate?: DecimalRate } | { kind: 'INDEXED'; index: MarketIndexKey; indexPercentYear: string; spreadBpsYear?: number; spread?: DecimalRate };

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
  /** Built on first read (INSTALLMENTS below); reads like a plain array everywhere. */
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

/**
 * A rate input's monthly rate, its double and its figures, memoized on the input's JSON: parsing
 * and dividing in decimal.js and printing the rate for the figures' memo were ~5% of a
 * simulation, and products and offers repeat a handful of rates.
 */
const monthlyRateFor = memoized(1024, (json): { monthly: Dec; monthlyF: number; figures: RateFigures } => {
  const monthly = monthlyRateOf(JSON.parse(json) as RateInput);
  return { monthly, monthlyF: monthly.toNumber(), figures: rateFigures(monthly) };
});

function dayOf(iso: string, message: string): number {
  const day = parseDay(iso);
  if (day === null) throw new DomainError('invalid', message);
  return day;
}

/** One schedule and its IOF for a principal. */
interface Pass {
  principalCents: number;
  schedule: Schedule;
  iofTotal: number;
}

/**
 * Working arrays of one simulation, reused by the next (simulate runs to its end without
 * yielding, so two calls never hold them at once), grown to the longest term seen: ten typed
 * arrays a call were ~10% of a 360-month simulation, with the garbage collection they caused.
 * Nothing here leaves simulate: the rows copy their values out.
 */
interface Workspace {
  capacity: number;
  elapsed: Int32Array;
  iofParts: Float64Array;
  payments: Float64Array;
  kept: [Pass, Pass];
}

const newPass = (n: number): Pass => ({ principalCents: -1, schedule: newSchedule(n), iofTotal: 0 });
let workspace: Workspace | null = null;

function workspaceFor(n: number): Workspace {
  if (!workspace || workspace.capacity < n) {
    const capacity = Math.max(n, 360);
    workspace = { capacity, elapsed: new Int32Array(capacity), iofParts: new Float64Array(capacity), payments: new Float64Array(capacity), kept: [newPass(capacity), newPass(capacity)] };
  }
  return workspace;
}

/**
 * What a simulation's rows are made of until someone reads them: principal, interest and IOF of
 * each row (copied out of the workspace that the next call reuses), the due dates, the principal.
 */
const ROWS = Symbol('rows');
interface RowsSource {
  cents: number[];
  dueDates: readonly string[];
  principal: number;
  rows: Installment[] | null;
}
type LazySimulation = Simulation & { [ROWS]: RowsSource };

function rowsOf(source: RowsSource): Installment[] {
  const { cents, dueDates, principal } = source;
  const n = dueDates.length;
  const rows = new Array<Installment>(n);
  let balance = principal;
  for (let k = 0; k < n; k++) {
    const principalCents = cents[3 * k]!;
    const interestCents = cents[3 * k + 1]!;
    balance -= principalCents;
    rows[k] = { number: k + 1, dueDate: dueDates[k]!, principalCents, interestCents, iofCents: cents[3 * k + 2]!, balanceCents: balance, amountCents: principalCents + interestCents };
  }
  return rows;
}

/**
 * `installments` as an own enumerable accessor (JSON.stringify, spreads and deep equality read
 * it like a plain property) that builds the row objects on first read: 360 objects were ~15% of
 * a simulation's CPU and most of its garbage, and the schedule's arithmetic is all done before
 * them. One descriptor for every simulation: a getter made per call would give each result its
 * own hidden class, which cost more than the rows.
 */
const INSTALLMENTS: PropertyDescriptor = {
  get(this: LazySimulation) {
    const source = this[ROWS];
    return (source.rows ??= rowsOf(source));
  },
  set(this: LazySimulation, rows: Installment[]) {
    this[ROWS].rows = rows;
  },
  enumerable: true,
  configurable: true,
};

/**
 * The schedules the financed-IOF search runs, on the workspace's two passes: the search ends on
 * g(P) then g(P - 1), so P's schedule is still kept when it ends, not recomputed. SAC's IOF comes
 * from its closed form when that holds. A class, not closures: the service runs under tsx, which
 * names every function created at run time (keepNames), a measurable cost per simulation.
 */
class Passes implements IofOfPrincipal {
  private turn = 0;
  private readonly sac: SacIof | null;

  constructor(
    private readonly model: AmortizationModel,
    private readonly n: number,
    private readonly rates: PeriodRates,
    private readonly iofParts: Float64Array,
    private readonly kept: [Pass, Pass],
  ) {
    kept[0].principalCents = kept[1].principalCents = -1;
    this.sac = model === 'SAC' ? new SacIof(n, iofParts) : null;
  }

  private run(principalCents: number): Pass {
    const pass = (this.turn ^= 1) ? this.kept[1] : this.kept[0];
    pass.principalCents = principalCents;
    pass.iofTotal = scheduleWithIof(this.model, principalCents, this.n, this.rates, this.iofParts, pass.schedule);
    return pass;
  }

  iofOf(principalCents: number): number {
    return this.sac?.iofOf(principalCents) ?? this.run(principalCents).iofTotal;
  }

  /** The schedule of a principal: one of the two kept if the search ended there. */
  of(principalCents: number): Pass {
    const [a, b] = this.kept;
    return a.principalCents === principalCents ? a : b.principalCents === principalCents ? b : this.run(principalCents);
  }
}

/** Prices a credit operation: schedule, IOF, fees, totals and CET. Pure; holidays and IOF rates come in. */
export function simulate(input: SimulationInput, calendar: HolidayCalendar, iofTable: readonly IofRate[]): Simulation {
  const release = dayOf(input.releaseDate, PricingMessages.invalidReleaseDate);
  const firstDue = dayOf(input.firstDueDate, PricingMessages.invalidFirstDueDate);
  const firstPeriod = firstDue - release;
  if (firstPeriod < 1 || firstPeriod > MAX_FIRST_PERIOD_DAYS) throw new DomainError('invalid', PricingMessages.firstDueDateRange);

  const n = input.termMonths;
  const { monthly, monthlyF, figures } = monthlyRateFor(JSON.stringify(input.rate));
  const rates: PeriodRates = periodRates(monthly, monthlyF, firstDue - oneMonthAfter(release), input.termMonths);
  const due = dueDates(firstDue, n, input.moveDueDatesToBusinessDay, calendar);
  const { elapsed, iofParts, payments, kept } = workspaceFor(n);
  for (let k = 0; k < n; k++) elapsed[k] = due.days[k]! - release;

  const fees: Simulation['fees'] = [];
  let financedFees = 0;
  let upfrontFees = 0;
  for (const fee of input.fees) {
    const amountCents = (fee.amountCents ?? 0) + (fee.percentBps ? Math.round((input.amountCents * fee.percentBps) / 10_000) : 0);
    fees.push({ key: fee.key, name: fee.name, amountCents, financed: fee.financed });
    if (fee.financed) financedFees += amountCents;
    else upfrontFees += amountCents;
  }

  const iofRate = input.iof.applies ? iofRateOn(iofTable, iofBracket(input.entityType, input.simplesNacional, input.amountCents), input.releaseDate) : null;
  // A plain loop: Float64Array.from with a map function takes V8's slow generic path (~80 µs here).
  for (let k = 0; k < n; k++) iofParts[k] = iofRate ? iofPartsPerCent(elapsed[k]!, iofRate) : 0;
  const base = input.amountCents + financedFees;
  const passes = new Passes(input.model, n, rates, iofParts, kept);
  const principal = iofRate && input.iof.financed ? grossUp(base, passes) : base;
  const { schedule, iofTotal } = passes.of(principal);
  const netReleased = input.amountCents - upfrontFees - (iofRate && !input.iof.financed ? iofTotal : 0);
  if (netReleased <= 0) throw new DomainError('invalid', PricingMessages.feesExceedAmount);

  // What the rows need once the workspace is reused: principal, interest and IOF of each row.
  const cents = new Array<number>(3 * n);
  let interestTotal = 0;
  for (let k = 0; k < n; k++) {
    const principalCents = schedule.principal[k]!;
    const interestCents = schedule.interest[k]!;
    interestTotal += interestCents;
    payments[k] = principalCents + interestCents;
    cents[3 * k] = principalCents;
    cents[3 * k + 1] = interestCents;
    cents[3 * k + 2] = schedule.iof[k]!;
  }
  const simulation = {
    [ROWS]: { cents, dueDates: due.iso, principal, rows: null },
    model: input.model,
    rate: { monthlyPercent: figures.monthlyPercent, yearlyPercent: figures.yearlyPercent, rateBpsYear: figures.rateBpsYear },
    iof: iofRate && {
      bracket: iofRate.bracket,
      dailyPercent: iofRate.dailyPercent,
      additionalPercent: iofRate.additionalPercent,
      source: iofRate.source,
      totalCents: iofTotal,
      financed: input.iof.financed,
    },
    fees,
  } as LazySimulation;
  Object.defineProperty(simulation, 'installments', INSTALLMENTS);
  simulation.totals = {
    requestedCents: input.amountCents,
    principalCents: principal,
    netReleasedCents: netReleased,
    interestCents: interestTotal,
    iofCents: iofTotal,
    feesCents: financedFees + upfrontFees,
    installmentsCents: principal + interestTotal,
  };
  simulation.cet = cet(netReleased, { cents: payments.subarray(0, n), days: elapsed.subarray(0, n) }, figures.yearlyF);
  return simulation;
}
