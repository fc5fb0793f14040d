import { D } from './rates.ts';

/**
 * CET (Resolução CMN 4.881/2020, art. 3): the annual rate r with
 *
 *     FC0 = sum_j FC_j / (1 + r)^((d_j - d_0) / 365)
 *
 * FC0 the amount actually released to the customer (net of upfront IOF and fees), FC_j the
 * j-th payment, d the dates in days. The monthly CET is its monthly equivalent (1+r)^(1/12)-1.
 * Both are shown in percent with two decimals, rounded half up.
 *
 * Root finder: with L = ln(1+r), f(L) = sum FC_j e^(-t_j L) - FC0 is decreasing and convex, so
 * Halley's steps are safe inside a bracket kept by bisection (any step leaving it bisects
 * instead). Doubles find L to ~1e-15; only when the result lies within 1e-9 percent of a
 * rounding boundary is the side of the boundary decided in decimal.js.
 */
/** The payments: `cents[j]` paid `days[j]` days after the release, in date order. */
export interface Flows {
  cents: Float64Array;
  days: Int32Array;
}

export interface Cet {
  yearPercent: string;
  monthPercent: string;
}

/**
 * The flows f is evaluated on, with the gaps' numbering and exponentials, kept between calls (cet
 * runs to its end without yielding, so two calls never hold them at once) and grown to the
 * longest flows seen. Module state rather than a closure per CET: the service runs under tsx,
 * which names every function created at run time (keepNames), and the closures with their
 * derivative properties were ~3% of a 360-month simulation.
 */
const curve: Flows & { net: number; shortest: number; lengths: number; slots: Int32Array; factors: Float64Array; d1: number; d2: number } = {
  cents: new Float64Array(0),
  days: new Int32Array(0),
  net: 0,
  shortest: 0,
  lengths: 0,
  slots: new Int32Array(0),
  factors: new Float64Array(0),
  /** f' and f'' at the last L evaluated. */
  d1: 0,
  d2: 0,
};

/**
 * Numbers the gaps between due dates (28 to 31 days but for the first) once per CET (`slot`, the
 * gap less the shortest), so that e^(-t_j L) is a running product with one exp per gap length
 * and each evaluation is one pass over typed arrays.
 */
function prepare(flows: Flows, net: number): void {
  const { cents, days } = flows;
  const n = cents.length;
  let shortest = Infinity;
  let longest = 0;
  for (let j = 1; j < n; j++) {
    const gap = days[j]! - days[j - 1]!;
    if (gap < shortest) shortest = gap;
    if (gap > longest) longest = gap;
  }
  const slot = curve.slots.length < n ? (curve.slots = new Int32Array(n)) : curve.slots;
  for (let j = 1; j < n; j++) slot[j] = days[j]! - days[j - 1]! - shortest;
  const lengths = n > 1 ? longest - shortest + 1 : 0;
  if (curve.factors.length < lengths) curve.factors = new Float64Array(lengths);
  curve.cents = cents;
  curve.days = days;
  curve.net = net;
  curve.shortest = shortest;
  curve.lengths = lengths;
}

/** f at L; f' and f'' from the same pass land in curve.d1 and curve.d2. */
function evaluate(L: number): number {
  const { cents, days, slots: slot, factors: factor, shortest, lengths } = curve;
  const n = cents.length;
  for (let s = 0; s < lengths; s++) factor[s] = Math.exp((-(shortest + s) / 365) * L);
  let discount = Math.exp((-days[0]! / 365) * L);
  let value = cents[0]! * discount;
  let d1 = days[0]! * value;
  let d2 = days[0]! * d1;
  for (let j = 1; j < n; j++) {
    discount *= factor[slot[j]!]!;
    const term = cents[j]! * discount;
    value += term;
    d1 += days[j]! * term;
    d2 += days[j]! * days[j]! * term;
  }
  curve.d1 = -d1 / 365;
  curve.d2 = d2 / (365 * 365);
  return value - curve.net;
}

/**
 * Below this L (a CET of 1,000% a year) an error of 1e-14 in L moves the printed percent's
 * hundredths by less than 1e-7, the band that `rounded` settles in decimal.js: there a root
 * known to ~1e-16 prints the same as one polished to the last bit.
 */
const EARLY_STOP_MAX_LOG = Math.log(11);

/**
 * Halley's steps (f'' comes with f from the same pass: about half the passes of Newton's from the
 * nominal rate), inside a bracket kept by bisection. The bracket's upper end is searched for
 * only when a step leaves the known bracket, which the convex, decreasing f seldom allows.
 *
 * Halley converges cubically (step_{k+1} ~ C step_k^3), so two Halley steps in a row estimate C
 * and the step a further pass would take: when that is under 1e-16 (and L is not absurd, see
 * EARLY_STOP_MAX_LOG) the pass is skipped. On 360-month schedules the steps go 6e-3, 6e-7,
 * 1e-16 (rounding noise): this saves the third of three passes.
 */
function solveLog(guess: number): number {
  let lo = -0.99;
  let hi = Infinity;
  let L = guess > lo && guess < 1e3 ? guess : 0.2;
  let previousHalley = NaN;
  for (let i = 0; i < 200; i++) {
    const value = evaluate(L);
    if (value === 0) return L;
    if (value > 0) lo = L;
    else hi = L;
    const { d1, d2 } = curve;
    const halley = 2 * d1 * d1 - value * d2;
    const next = d1 >= 0 ? NaN : halley > 0 ? L - (2 * value * d1) / halley : L - value / d1;
    const step = Math.abs(next - L);
    // Converged: the step is below the doubles' resolution at L (checked before the bracket,
    // which a last rounding-size step may graze).
    if (step <= 1e-15 * Math.max(1, Math.abs(L))) return next;
    if (next > lo && next < hi) {
      if (halley > 0 && next < EARLY_STOP_MAX_LOG && step ** 4 <= 1e-16 * previousHalley ** 3) return next;
      previousHalley = halley > 0 ? step : NaN;
      L = next;
    } else {
      if (hi === Infinity) for (hi = 1; evaluate(hi) > 0 && hi < 1e3;) hi *= 2;
      L = (lo + hi) / 2;
      previousHalley = NaN;
    }
    if (hi - lo <= 1e-15) return L;
  }
  return L;
}

/** Sign of f at the yearly rate `percent` (a decimal string), in decimal.js. */
function decimalSign(flows: Flows, net: number, yearlyPercent: Decimal): number {
  const base = new D(1).plus(yearlyPercent.div(100));
  let sum = new D(-net);
  for (let j = 0; j < flows.cents.length; j++) sum = sum.plus(new D(flows.cents[j]!).div(base.pow(new D(flows.days[j]!).div(365))));
  return sum.comparedTo(0);
}

type Decimal = InstanceType<typeof D>;

/** The yearly rate of a monthly CET in percent, for the decimal check of its rounding edge. */
const yearlyOfMonthly = (p: Decimal): Decimal => new D(1).plus(p.div(100)).pow(12).minus(1).times(100);

/** Percent with two decimals of a double, checked in decimal.js when it sits on a rounding edge. */
function rounded(percent: number, monthly: boolean, flows: Flows, net: number): string {
  const scaled = percent * 100;
  const edge = Math.floor(scaled) + 0.5;
  if (Math.abs(scaled - edge) > 1e-7) return (Math.round(scaled) / 100).toFixed(2);
  // f decreasing: f(edge) > 0 means the root is above the edge, so it rounds up.
  const edgePercent = new D(edge).div(100);
  const sign = decimalSign(flows, net, monthly ? yearlyOfMonthly(edgePercent) : edgePercent);
  return new D(sign > 0 ? Math.ceil(scaled) : Math.floor(scaled)).div(100).toFixed(2);
}

/** `guessYearly`: a yearly fraction near the answer (the nominal rate), where Newton starts. */
export function cet(net: number, flows: Flows, guessYearly = 0.2): Cet {
  prepare(flows, net);
  const L = solveLog(Math.log1p(guessYearly));
  const year = (Math.exp(L) - 1) * 100;
  const month = (Math.exp(L / 12) - 1) * 100;
  return {
    yearPercent: rounded(year, false, flows, net),
    monthPercent: rounded(month, true, flows, net),
  };
}
