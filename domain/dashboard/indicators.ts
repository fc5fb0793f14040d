/**
 * The sums a group of proposals adds up to (the rollup's columns, in camelCase) and the nine
 * indicators the spec defines over them. Pure: the queries hand in sums, this turns them into replies.
 */
export const MEASURE_NAMES = [
  'received',
  'requestedCents',
  'approved',
  'rejected',
  'analyzed',
  'analyzedRequestedCents',
  'preApproved',
  'preApprovedRequestedCents',
  'firm',
  'firmOfferedCents',
  'chosen',
  'chosenOfferedCents',
  'issued',
  'issuedOfferedCents',
  'offersFirm',
  'offersChosen',
  'expiredWithoutChoice',
  'chosenAmountCents',
  'requestedOfChosenCents',
  'chosenByCustomer',
  'chosenByOperator',
] as const;
export type MeasureName = (typeof MEASURE_NAMES)[number];
export type Measures = Record<MeasureName, number>;

export const zeroMeasures = (): Measures => Object.fromEntries(MEASURE_NAMES.map((name) => [name, 0])) as Measures;
export function addMeasures(into: Measures, more: Measures): Measures {
  for (const name of MEASURE_NAMES) into[name] += more[name];
  return into;
}

/** Proposals by whole days (the last cycle bucket, 120, holds every longer duration). */
export type Histogram = Map<number, number>;
export function addToHistogram(into: Histogram, days: number, n: number): Histogram {
  into.set(days, (into.get(days) ?? 0) + n);
  return into;
}
export const histogramSize = (h: Histogram) => [...h.values()].reduce((a, b) => a + b, 0);

/** Nearest rank: the smallest bucket holding at least p of the proposals; 0 when there are none. */
export function percentileDays(h: Histogram, p: number): number {
  const n = histogramSize(h);
  if (n === 0) return 0;
  const rank = Math.ceil(p * n);
  let seen = 0;
  for (const days of [...h.keys()].sort((a, b) => a - b)) {
    seen += h.get(days)!;
    if (seen >= rank) return days;
  }
  return 0;
}

/** Open proposals of a group: how many, and how many are past their status's sla. */
export interface OpenCounts {
  openNow: number;
  outOfSla: number;
}
export const zeroOpen = (): OpenCounts => ({ openNow: 0, outOfSla: 0 });

export interface Indicators {
  received: number;
  requestedCents: number;
  approvalRate: number;
  issuedOfferedCents: number;
  ticketCents: number;
  timeToOfferDays: number;
  conversion: number;
  openNow: number;
  outOfSla: number;
}
export const INDICATOR_NAMES = ['received', 'requestedCents', 'approvalRate', 'issuedOfferedCents', 'ticketCents', 'timeToOfferDays', 'conversion', 'openNow', 'outOfSla'] as const;

/** Rates are fractions from 0 to 1 with four decimals; a division by no proposals is 0. */
const ratio = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 10_000);

export function indicatorsOf(m: Measures, toIssue: Histogram, open: OpenCounts): Indicators {
  return {
    received: m.received,
    requestedCents: m.requestedCents,
    approvalRate: ratio(m.approved, m.approved + m.rejected),
    issuedOfferedCents: m.issuedOfferedCents,
    ticketCents: m.received === 0 ? 0 : Math.round(m.requestedCents / m.received),
    timeToOfferDays: percentileDays(toIssue, 0.5),
    conversion: ratio(m.issued, m.received),
    openNow: open.openNow,
    outOfSla: open.outOfSla,
  };
}

export const zeroIndicators = (): Indicators => indicatorsOf(zeroMeasures(), new Map(), zeroOpen());

/** The nine indicators as lists, one position per week. */
export type WeeklyIndicators = { [K in keyof Indicators]: number[] };
export function weeklyOf(weeks: Indicators[]): WeeklyIndicators {
  return Object.fromEntries(INDICATOR_NAMES.map((name) => [name, weeks.map((w) => w[name])])) as WeeklyIndicators;
}
