import Holidays from 'date-holidays';
import { parseDay, type HolidayCalendar } from '../../domain/pricing/calendar.ts';

/**
 * Brazil's national holidays from date-holidays, as days banks are closed: its `public` days
 * plus its `bank` days (Carnival Monday and Tuesday, Corpus Christi), which the Banco Central's
 * calendar treats as non-business days for payments. Ash Wednesday (banks open at noon) and the
 * `optional`/`observance` days do not count. One set per year, built on first use.
 */
export class BrazilHolidays implements HolidayCalendar {
  private readonly source = new Holidays('BR');
  private readonly years = new Map<number, Set<number>>();

  isHoliday(day: number): boolean {
    const year = new Date(day * 86_400_000).getUTCFullYear();
    let days = this.years.get(year);
    if (!days) {
      days = new Set(
        this.source
          .getHolidays(year)
          .filter((h) => h.type === 'public' || h.type === 'bank')
          .map((h) => parseDay(h.date.slice(0, 10))!),
      );
      this.years.set(year, days);
    }
    return days.has(day);
  }
}

/** One calendar for the process: the per-year sets are worth keeping. */
export const brazilHolidays = new BrazilHolidays();
