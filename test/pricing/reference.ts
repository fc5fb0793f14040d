/**
 * A second, deliberately plain implementation of the textbook formulas (doubles, Date, no
 * decimal.js, no shared code with domain/pricing), for the worked examples to be checked against.
 */
const DAY = 86_400_000;
export const daysBetween = (from: string, to: string): number => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY);

/** Same day each month from the first due date, clamped to the month's last day. */
export function plainDueDates(first: string, n: number): string[] {
  const [y, m, d] = first.split('-').map(Number) as [number, number, number];
  return Array.from({ length: n }, (_, k) => {
    const last = new Date(Date.UTC(y, m - 1 + k + 1, 0)).getUTCDate();
    return new Date(Date.UTC(y, m - 1 + k, Math.min(d, last))).toISOString().slice(0, 10);
  });
}

export const pricePayment = (principal: number, i: number, n: number): number => (principal * i) / (1 - Math.pow(1 + i, -n));

/**
 * The first period's rate: one calendar month after the release (same day, or the month's last
 * day) is one period at i; the days beyond it (negative when short of it) are charged pro rata.
 */
export function plainFirstPeriodRate(i: number, release: string, firstDue: string): number {
  const [y, m, d] = release.split('-').map(Number) as [number, number, number];
  const lastOfNext = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const monthLater = new Date(Date.UTC(y, m, Math.min(d, lastOfNext))).toISOString().slice(0, 10);
  return Math.pow(1 + i, 1 + daysBetween(monthLater, firstDue) / 30) - 1;
}

/** PRICE rows (cents) with a first period at `first`: the level payment discounts each due date by its own periods. */
export function plainPriceRows(principal: number, i: number, first: number, n: number): Array<{ interest: number; principal: number }> {
  let pv = 0;
  for (let k = 0; k < n; k++) pv += 1 / ((1 + first) * Math.pow(1 + i, k));
  const pmt = Math.round(principal / pv);
  let balance = principal;
  return Array.from({ length: n }, (_, k) => {
    const interest = Math.round(balance * (k === 0 ? first : i));
    const amortization = k === n - 1 ? balance : pmt - interest;
    balance -= amortization;
    return { interest, principal: amortization };
  });
}

/** A yearly fraction as the reply's percent with two decimals. */
export const percentOf = (fraction: number): string => (Math.round(fraction * 10_000) / 100).toFixed(2);

/** IOF of a schedule's amortizations (cents), each rounded to the cent. */
export function plainIof(amortizations: number[], release: string, dues: string[], dailyFraction: number, additionalFraction: number): number[] {
  return amortizations.map((a, k) => Math.round(a * (dailyFraction * Math.min(365, daysBetween(release, dues[k]!)) + additionalFraction)));
}

/** CET by bisection on the yearly rate, straight from the resolution's formula. */
export function plainCetYear(net: number, payments: number[], release: string, dues: string[]): number {
  const npv = (r: number) => payments.reduce((s, p, k) => s + p / Math.pow(1 + r, daysBetween(release, dues[k]!) / 365), 0) - net;
  let lo = -0.5;
  let hi = 100;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (npv(mid) > 0) lo = mid;
    else hi = mid;
  }
  return lo;
}
