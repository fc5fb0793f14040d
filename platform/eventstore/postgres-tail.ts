import { categoryOf, comparePositions, type EventFilter, type Position, type RecordedEvent } from './port.ts';
import type { PageResult } from './postgres.ts';

export interface TailOptions {
  /** Events per read of the log. */
  pageSize: number;
  /** Most events kept in memory; the oldest go first. */
  maxBuffered: number;
  /** A read that started at most this long ago counts as fresh for a caught-up subscriber. */
  pollIntervalMs: number;
}

interface TailRead {
  /** wake() count when it started: it sees every append that woke the tail before. */
  wakes: number;
  startedAt: number;
  done: Promise<void>;
  finished: boolean;
  failed: boolean;
  /** It stopped at a full page: more events follow at once. */
  more: boolean;
}

/**
 * One reader of the end of $all for every subscription of a store. Each caught-up subscription
 * used to poll the log itself and to be woken by every append: with twenty subscribers (the
 * projections and the process managers) each append cost twenty reads, which held the pool's
 * connections and kept the appends themselves waiting for one. Now a caught-up subscription
 * asks the tail, which reads the log once (unfiltered) for all of them, whatever the number that
 * asked, and keeps the newest events in memory; each subscription filters its page from there.
 * A subscription further behind than the memory reads the log on its own, as before, until it
 * reaches it.
 *
 * The memory holds every event in (from, to], in order, where `to` is the checkpoint of the last
 * read (for a caught-up read, below the oldest transaction still running), so a page cut from it
 * is exactly the page the log would have given after the same position.
 */
export class SharedTail {
  private events: RecordedEvent[] = [];
  private from: Position | undefined;
  private to: Position | undefined;
  private wakes = 0;
  private current: TailRead | undefined;

  constructor(
    private readonly readLog: (after: Position, maxCount: number) => Promise<PageResult>,
    private readonly options: TailOptions,
  ) {}

  /** An append committed in this process: the next page asked for at the tail reads the log again. */
  wake(): void {
    this.wakes++;
  }

  /**
   * Where the tail starts, given by the first subscription that read the log up to its end: until
   * then nobody is at the tail, and starting it further back would only read what is not needed.
   */
  seed(caughtUp: Position): void {
    if (this.to === undefined) this.from = this.to = caughtUp;
  }

  /**
   * The page after `after` from memory, reading the log first (once for every caller) when the
   * memory has nothing after it; undefined when `after` is not in the memory's range, for the
   * caller to read the log itself.
   */
  async page(after: Position, filter: EventFilter | undefined, maxCount: number): Promise<PageResult | undefined> {
    if (this.to === undefined || comparePositions(after, this.from!) < 0) return undefined;
    if (comparePositions(after, this.to) >= 0) await this.refresh();
    if (comparePositions(after, this.from!) < 0 || comparePositions(after, this.to) > 0) return undefined;
    return this.slice(after, filter, maxCount);
  }

  private slice(after: Position, filter: EventFilter | undefined, maxCount: number): PageResult {
    let low = 0;
    let high = this.events.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (comparePositions(this.events[middle]!.position, after) <= 0) low = middle + 1;
      else high = middle;
    }
    const scanned = this.events.slice(low, low + maxCount);
    const more = scanned.length >= maxCount;
    const types = filter?.eventTypes ? new Set(filter.eventTypes) : undefined;
    const categories = filter?.categories ? new Set(filter.categories) : undefined;
    const events = types || categories ? scanned.filter((e) => (!types || types.has(e.type)) && (!categories || categories.has(categoryOf(e.streamName)))) : scanned;
    const checkpoint = more ? scanned[scanned.length - 1]!.position : this.to!;
    return { events, checkpoint, passedEvents: scanned.length > 0, more };
  }

  /**
   * Make sure a read of the log has finished that started after the last wake() and within the
   * poll interval: join the one in flight if it qualifies, else start one after it. One read at
   * a time, so every caller shares it.
   */
  private async refresh(): Promise<void> {
    const wakes = this.wakes;
    const since = Date.now() - this.options.pollIntervalMs;
    for (;;) {
      const read = this.current;
      const usable = read && !read.failed && !(read.finished && read.more) && read.wakes >= wakes && read.startedAt >= since;
      if (usable) return read.done;
      if (read && !read.finished) {
        await read.done.catch(() => undefined);
        continue;
      }
      const next: TailRead = { wakes: this.wakes, startedAt: Date.now(), finished: false, failed: false, more: false, done: Promise.resolve() };
      next.done = this.readOnce(next);
      this.current = next;
      return next.done;
    }
  }

  private async readOnce(read: TailRead): Promise<void> {
    try {
      const page = await this.readLog(this.to!, this.options.pageSize);
      this.events.push(...page.events);
      if (comparePositions(page.checkpoint, this.to!) > 0) this.to = page.checkpoint;
      read.more = page.more;
      const excess = this.events.length - this.options.maxBuffered;
      if (excess > 0) {
        this.from = this.events[excess - 1]!.position;
        this.events = this.events.slice(excess);
      }
    } catch (error) {
      read.failed = true;
      throw error;
    } finally {
      read.finished = true;
    }
  }
}
