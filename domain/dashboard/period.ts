/**
 * The dashboard's calendar: Brasília time (UTC-3, no daylight saving since 2019, the same fixed
 * offset the report list reads days in), days from midnight, weeks from Monday midnight.
 */
import { DAY_MS } from './filters.ts';

export { DAY_MS };
export const WEEK_MS = 7 * DAY_MS;
const OFFSET_MS = 3 * 3_600_000;
/** Series are at least this many weeks long; breakdown rows count this many recent weeks. */
export const SERIES_WEEKS = 12;

/** Midnight in Brasília of the day `t` falls in. */
export const brasiliaDayStart = (t: number) => Math.floor((t - OFFSET_MS) / DAY_MS) * DAY_MS + OFFSET_MS;
/** The Brasília calendar date of `t`, `YYYY-MM-DD`. */
export const brasiliaDate = (t: number) => new Date(brasiliaDayStart(t) - OFFSET_MS).toISOString().slice(0, 10);
/** Monday midnight in Brasília of the week `t` falls in. */
export function brasiliaWeekStart(t: number): number {
  const day = brasiliaDayStart(t);
  const weekday = new Date(day - OFFSET_MS).getUTCDay(); // 0 = Sunday
  return day - ((weekday + 6) % 7) * DAY_MS;
}
export const isBrasiliaMidnight = (t: number) => brasiliaDayStart(t) === t;

export interface DashboardRange {
  from: number;
  to: number;
  /** The comparison period: as long as the period, ending where it starts. */
  prevFrom: number;
  prevTo: number;
  /** Mondays of the series: the period's weeks, or the last 12 weeks up to `to` when the period is shorter. */
  weekStarts: number[];
  /** The same number of weeks ending at the week of `prevTo`: position i of weekly.prev faces position i of weekly.cur. */
  prevWeekStarts: number[];
  /** Where breakdown rows start counting their weekly received: the last 12 of weekStarts. */
  recentFrom: number;
}

export function dashboardRange(from: number, to: number): DashboardRange {
  const prevFrom = from - (to - from);
  const last = brasiliaWeekStart(to - 1);
  const first = Math.min(brasiliaWeekStart(from), last - (SERIES_WEEKS - 1) * WEEK_MS);
  const weekStarts = Array.from({ length: (last - first) / WEEK_MS + 1 }, (_, i) => first + i * WEEK_MS);
  const shift = last - brasiliaWeekStart(from - 1);
  return {
    from,
    to,
    prevFrom,
    prevTo: from,
    weekStarts,
    prevWeekStarts: weekStarts.map((w) => w - shift),
    recentFrom: weekStarts[weekStarts.length - SERIES_WEEKS]!,
  };
}

/**
 * Days a whole-day bucket counts: the days elapsed, rounded down (a proposal issued 36 hours after
 * its creation took 1 day).
 */
export const wholeDays = (ms: number) => Math.floor(ms / DAY_MS);
