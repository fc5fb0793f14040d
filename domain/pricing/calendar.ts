/**
 * Dates as day numbers (days since 1970-01-01, UTC): due dates and IOF/CET day counts are whole
 * days, and integers keep 360-month schedules cheap. Holidays come in as a calendar the caller
 * builds (application/pricing/holidays.ts), so this stays pure.
 */
export interface HolidayCalendar {
  isHoliday(day: number): boolean;
}

export const NO_HOLIDAYS: HolidayCalendar = { isHoliday: () => false };

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` as a day number, or null when it is not a real calendar date. */
export function parseDay(iso: string): number | null {
  const m = ISO_DATE.exec(iso);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1900 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return null;
  return dayFromCivil(y, mo, d);
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/** A day number as `YYYY-MM-DD` (civil-from-days, H. Hinnant): no Date allocation per installment. */
export function formatDay(day: number): string {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${y}-${pad2(m)}-${pad2(d)}`;
}

function isBusinessDay(day: number, calendar: HolidayCalendar): boolean {
  // 1970-01-01 was a Thursday: day 0 -> weekday 4 (0 = Sunday).
  const weekday = (((day + 4) % 7) + 7) % 7;
  return weekday !== 0 && weekday !== 6 && !calendar.isHoliday(day);
}

export function nextBusinessDay(day: number, calendar: HolidayCalendar): number {
  let d = day;
  while (!isBusinessDay(d, calendar)) d++;
  return d;
}

/** Days since 1970-01-01 of a civil date (days-from-civil, H. Hinnant); month 1..12. */
function dayFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysInMonth = (y: number, m: number): number => (m === 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[m - 1]!);

/**
 * `count` due dates: the first due date's day of month every month (the month's last day when
 * that day does not exist: 31 -> Feb 28), optionally moved forward to the next business day.
 * A moved date does not shift the following ones.
 */
function computeDueDays(firstDue: number, count: number, moveToBusinessDay: boolean, calendar: HolidayCalendar): Int32Array {
  const [year, month, dayOfMonth] = formatDay(firstDue).split('-').map(Number) as [number, number, number];
  const days = new Int32Array(count);
  for (let k = 0; k < count; k++) {
    const day = sameDayMonthsLater(year, month, dayOfMonth, k);
    days[k] = moveToBusinessDay ? nextBusinessDay(day, calendar) : day;
  }
  return days;
}

/** The day `months` calendar months after year-month-day: same day of the month, or the month's last day. */
function sameDayMonthsLater(year: number, month: number, dayOfMonth: number, months: number): number {
  const total = month - 1 + months;
  const y = year + Math.floor(total / 12);
  const m = (total % 12) + 1;
  return dayFromCivil(y, m, Math.min(dayOfMonth, daysInMonth(y, m)));
}

/** One calendar month after a day, by the due dates' rule (Jan 31 -> Feb 28/29). */
export function oneMonthAfter(day: number): number {
  const [year, month, dayOfMonth] = formatDay(day).split('-').map(Number) as [number, number, number];
  return sameDayMonthsLater(year, month, dayOfMonth, 1);
}

/** Due dates as day numbers and as `YYYY-MM-DD`. Shared between calls: read them, never write. */
export interface DueDates {
  days: Int32Array;
  iso: readonly string[];
}

const DUE_DATES_CACHE_SIZE = 256;
const dueDatesCache = new WeakMap<HolidayCalendar, Map<string, DueDates>>();

/**
 * dueDays with their ISO strings, memoized per calendar object: simulations repeat a few first
 * due dates and terms, and 360 dates cost ~30 µs to move over holidays and format (as much as
 * the rest of a schedule). A calendar must answer the same for a day every time (the memo keys
 * on its identity); the memo is bounded per calendar, the oldest entry going when full.
 */
export function dueDates(firstDue: number, count: number, moveToBusinessDay: boolean, calendar: HolidayCalendar): DueDates {
  let memo = dueDatesCache.get(calendar);
  if (!memo) dueDatesCache.set(calendar, (memo = new Map()));
  const key = `${firstDue}:${count}:${moveToBusinessDay ? 1 : 0}`;
  let found = memo.get(key);
  if (!found) {
    const days = computeDueDays(firstDue, count, moveToBusinessDay, calendar);
    found = { days, iso: Array.from(days, formatDay) };
    if (memo.size >= DUE_DATES_CACHE_SIZE) memo.delete(memo.keys().next().value!);
    memo.set(key, found);
  }
  return found;
}
