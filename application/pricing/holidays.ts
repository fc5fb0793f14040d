import Holidays from 'date-holidays';
import { parseDay, type HolidayCalendar } from '../../domain/pricing/calendar.ts';

/**
 * Brazil's national holidays from date-holidays, as days banks are closed: its `public` days
 * plus its `bank` days (Carnival Monday and Tuesday, Corpus Christi), which the Banco Central's
 * calendar treats as non-business days for payments. Ash Wednesday (banks open at noon) and the
 * `optional`/`observance` days do not count. Years are loaded on first use.
 */
export class BrazilHolidays implements HolidayCalendar {
  private readonly source = new Holidays('BR');
  private readonly days = new Set<number>();
  private firstYear = 0;
  private lastYear = -1;
  /** Day numbers [from, to) of the loaded years: the hot path is one comparison and a Set lookup. */
  private from = 0;
  private to = 0;

  isHoliday(day: number): boolean {
    if (day < this.from || day >= this.to) this.load(new Date(day * 86_400_000).getUTCFullYear());
    return this.days.has(day);
  }

  /** Loads `year` and any year between it and those loaded, so the loaded range stays contiguous. */
  private load(year: number): void {
    const [first, last] = this.lastYear < this.firstYear ? [year, year] : [Math.min(year, this.firstYear), Math.max(year, this.lastYear)];
    for (let y = first; y <= last; y++) {
      if (y >= this.firstYear && y <= this.lastYear) continue;
      for (const h of this.source.getHolidays(y)) if (h.type === 'public' || h.type === 'bank') this.days.add(parseDay(h.date.slice(0, 10))!);
    }
    [this.firstYear, this.lastYear] = [first, last];
    [this.from, this.to] = [parseDay(`${first}-01-01`)!, parseDay(`${last + 1}-01-01`)!];
  }
}

/** One calendar for the process: the per-year sets are worth keeping. */
export const brazilHolidays = new BrazilHolidays();
