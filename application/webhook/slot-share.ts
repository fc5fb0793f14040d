/** What a slot knows of an attempt. */
export interface SlotHolder {
  id: string;
  organization_id: string;
}

/**
 * An organization whose last attempt finished this recently, and none of whose attempts has been
 * out longer, is answering: it may borrow slots beyond its share while nobody else wants them.
 */
const BORROW_WINDOW_MS = 1000;

/**
 * How one dispatcher's slots (HTTP attempts in flight) are shared between organizations.
 *
 * Each organization is guaranteed `share` slots (half). Beyond that it may borrow idle slots,
 * work-conserving, when no row of an organization under its share is waiting and its receiver
 * has been answering (a recent attempt finished, none is out for long), up to `ceiling`, which
 * always leaves at least one slot (an eighth) to the others: a receiver that starts to hang after
 * answering holds at most the ceiling until its attempts time out, and one that hangs from the
 * start never gets beyond its share. Only attempts in flight count, not rows claimed ahead.
 */
/** The slots each organization is guaranteed: half. */
export function shareOf(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / 2));
}

export class SlotShare {
  readonly share: number;
  readonly ceiling: number;
  /** Attempts in flight per organization: delivery id -> start time, oldest first. */
  private readonly running = new Map<string, Map<string, number>>();
  private readonly lastFinished = new Map<string, number>();
  private total = 0;

  constructor(private readonly concurrency: number) {
    this.share = shareOf(concurrency);
    this.ceiling = Math.max(this.share, concurrency - Math.max(1, Math.floor(concurrency / 8)));
  }

  get free(): boolean {
    return this.total < this.concurrency;
  }

  /** Whether an attempt of this organization may start within its guaranteed share. */
  underShare(organization: string): boolean {
    return this.free && (this.running.get(organization)?.size ?? 0) < this.share;
  }

  /**
   * Whether an attempt of this organization may start beyond its share: only while no row of an
   * organization under its share waits (the caller asks this second).
   */
  mayBorrow(organization: string, now: number): boolean {
    return this.free && this.answering(organization, now);
  }

  start(delivery: SlotHolder, now: number): void {
    let attempts = this.running.get(delivery.organization_id);
    if (!attempts) this.running.set(delivery.organization_id, (attempts = new Map()));
    attempts.set(delivery.id, now);
    this.total++;
  }

  finish(delivery: SlotHolder, now: number): void {
    const attempts = this.running.get(delivery.organization_id);
    if (!attempts?.delete(delivery.id)) return;
    this.total--;
    if (!attempts.size) this.running.delete(delivery.organization_id);
    this.lastFinished.set(delivery.organization_id, now);
  }

  /** Its receiver has been answering and it holds less than the ceiling. */
  private answering(organization: string, now: number): boolean {
    const attempts = this.running.get(organization);
    if ((attempts?.size ?? 0) >= this.ceiling) return false;
    const finished = this.lastFinished.get(organization);
    if (finished === undefined) return false;
    if (now - finished > BORROW_WINDOW_MS) {
      // Stale: forget it, so the map holds only organizations active in the last second.
      this.lastFinished.delete(organization);
      return false;
    }
    const oldest = attempts?.values().next().value;
    return oldest === undefined || now - oldest <= BORROW_WINDOW_MS;
  }
}
