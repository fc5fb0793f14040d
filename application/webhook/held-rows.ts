import { Backlog } from './backlog.ts';
import type { ClaimedDelivery } from './delivery-store.ts';
import { OrganizationQueues } from './organization-queues.ts';

export interface Held {
  row: ClaimedDelivery;
  /** By this process's clock, counted from before the database set the lease: conservative. */
  leaseEnd: number;
}

/**
 * Rows claimed for one dispatcher (by its claims, or handed over by the outbox) that wait in
 * memory to be sent, with what fairness and leases need: how many each organization has queued,
 * when each row's lease ends, and which organizations may have older rows left in the table.
 */
export class HeldRows {
  private readonly waiting = new OrganizationQueues<Held>();
  /** Rows each organization has queued here, reservations for rows being handed over included. */
  readonly queued = new Map<string, number>();
  private readonly backlog = new Backlog();

  constructor(
    private readonly leaseMs: number,
    /** The lease a row must have left to be sent: a whole attempt and a margin. */
    private readonly attemptMs: number,
    /** Rows one organization may have queued at most. */
    private readonly depth: number,
  ) {}

  get size(): number {
    return this.waiting.size;
  }

  /** Room for one more new row of this organization, without overtaking older ones in the table. */
  reserve(organizationId: string): boolean {
    if (this.backlog.has(organizationId)) return false;
    if ((this.queued.get(organizationId) ?? 0) >= this.depth) {
      this.backlog.add(organizationId);
      return false;
    }
    this.count(organizationId, 1);
    return true;
  }

  /** Reserved rows that will not come. */
  release(rows: readonly ClaimedDelivery[]): void {
    for (const row of rows) this.count(row.organization_id, -1);
  }

  /** Rows claimed with a lease the database counted from after `since`; `reserved` if counted by reserve(). */
  hold(rows: readonly ClaimedDelivery[], since: number, reserved: boolean): void {
    for (const row of rows) {
      if (!reserved) this.count(row.organization_id, 1);
      this.waiting.push(row.organization_id, { row, leaseEnd: since + this.leaseMs });
    }
  }

  /** Rows of these subscriptions are not sent from memory: they are claimed again when their lease ends. */
  drop(subscriptionIds: ReadonlySet<string>): void {
    const removed = this.waiting.remove(({ row }) => subscriptionIds.has(row.subscription_id));
    for (const [organizationId, held] of removed) {
      this.release(held.map(({ row }) => row));
      this.backlog.add(organizationId);
    }
  }

  /** Rows taken to be sent that were stopped before their attempt: left claimed in the table, like dropped ones. */
  stopped(rows: readonly ClaimedDelivery[]): void {
    for (const row of rows) this.backlog.add(row.organization_id);
  }

  /** A claim that skipped `skipped` organizations came back empty. */
  drained(skipped: readonly string[]): void {
    this.backlog.drained(skipped);
  }

  /**
   * The oldest row of an organization `mayTake` allows. A row with too little lease left is
   * dropped: another dispatcher could claim it meanwhile. It stays claimed in the table and is
   * claimed again, in its turn, when the lease ends.
   */
  next(mayTake: (organizationId: string) => boolean, now: number): Held | undefined {
    for (let held = this.waiting.takeOldest(mayTake); held; held = this.waiting.takeOldest(mayTake)) {
      this.count(held.row.organization_id, -1);
      if (held.leaseEnd - now >= this.attemptMs) return held;
      this.backlog.add(held.row.organization_id);
    }
    return undefined;
  }

  /**
   * Rows that may leave as soon as there is room, each organization counted for at most `share`:
   * one organization's deep queue must not stop the claims that bring the others' rows.
   */
  startable(share: number, blocked: (organizationId: string) => boolean): number {
    let count = 0;
    for (const [organizationId, length] of this.waiting.lengths()) if (!blocked(organizationId)) count += Math.min(share, length);
    return count;
  }

  private count(organizationId: string, change: 1 | -1): void {
    const queued = (this.queued.get(organizationId) ?? 0) + change;
    if (queued === 0) this.queued.delete(organizationId);
    else this.queued.set(organizationId, queued);
  }
}
