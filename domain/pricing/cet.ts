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
 * Newton's steps are safe inside a bracket kept by bisection (any step leaving it bisects
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
 * f and f' at L, for Newton. e^(-t_j L) is built as a running product over the gaps between due
 * dates (28 to 31 days but for the first): one exp per distinct gap instead of one per flow, the
 * gaps numbered once per CET (`slot`) so that each evaluation is one pass over typed arrays.
 */
function npv(flows: Flows, net: number): (L: number) => [number, number] {
  const { cents, days } = flows;
  const n = cents.length;
  const gaps: number[] = [];
  const slot = new Int32Array(n);
  for (let j = 0, previous = 0; j < n; previous = days[j]!, j++) {
    const gap = days[j]! - previous;
    let s = gaps.indexOf(gap);
    if (s < 0) s = gaps.push(gap) - 1;
    slot[j] = s;
  }
  const factor = new Float64Array(gaps.length);
  return (L) => {
    for (let s = 0; s < gaps.length; s++) factor[s] = Math.exp((-gaps[s]! / 365) * L);
    let value = -net;
    let slope = 0;
    let discount = 1;
    for (let j = 0; j < n; j++) {
      discount *= factor[slot[j]!]!;
      const term = cents[j]! * discount;
      value += term;
      slope -= (days[j]! / 365) * term;
    }
    return [value, slope];
  };
}

function solveLog(f: (L: number) => [number, number], guess: number): number {
  let lo = -0.99;
  let hi = 1;
  while (f(hi)[0] > 0 && hi < 1e3) hi *= 2;
  let L = guess > lo && guess < hi ? guess : 0.2;
  for (let i = 0; i < 200; i++) {
    const [value, slope] = f(L);
    if (value === 0) return L;
    if (value > 0) lo = L;
    else hi = L;
    const newton = slope < 0 ? L - value / slope : NaN;
    // Converged: the step is below the doubles' resolution at L (checked before the bracket,
    // which a last rounding-size step may graze).
    if (Math.abs(newton - L) <= 1e-15 * Math.max(1, Math.abs(L))) return newton;
    L = newton > lo && newton < hi ? newton : (lo + hi) / 2;
    if (hi - lo <= 1e-15) return L;
  }
  return L;
}

/** Sign of f at the yearly rate `percent` (a decimal string), in decimal.js. */
function decimalSign(flows: Flows, net: number, yearlyPercent: InstanceType<typeof D>): number {
  const base = new D(1).plus(yearlyPercent.div(100));
  let sum = new D(-net);
  for (let j = 0; j < flows.cents.length; j++) sum = sum.plus(new D(flows.cents[j]!).div(base.pow(new D(flows.days[j]!).div(365))));
  return sum.comparedTo(0);
}

/** Percent with two decimals of a double, checked in decimal.js when it sits on a rounding edge. */
function rounded(percent: number, toYearly: (p: InstanceType<typeof D>) => InstanceType<typeof D>, flows: Flows, net: number): string {
  const scaled = percent * 100;
  const edge = Math.floor(scaled) + 0.5;
  if (Math.abs(scaled - edge) > 1e-7) return (Math.round(scaled) / 100).toFixed(2);
  // f decreasing: f(edge) > 0 means the root is above the edge, so it rounds up.
  const sign = decimalSign(flows, net, toYearly(new D(edge).div(100)));
  return new D(sign > 0 ? Math.ceil(scaled) : Math.floor(scaled)).div(100).toFixed(2);
}

/** `guessYearly`: a yearly fraction near the answer (the nominal rate), where Newton starts. */
export function cet(net: number, flows: Flows, guessYearly = 0.2): Cet {
  const L = solveLog(npv(flows, net), Math.log1p(guessYearly));
  const year = (Math.exp(L) - 1) * 100;
  const month = (Math.exp(L / 12) - 1) * 100;
  return {
    yearPercent: rounded(year, (p) => p, flows, net),
    monthPercent: rounded(month, (p) => new D(1).plus(p.div(100)).pow(12).minus(1).times(100), flows, net),
  };
}
