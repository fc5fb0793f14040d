import { Backlog } from './backlog.ts';
import type { ClaimedDelivery } from './delivery-store.ts';
import type { SlotShare } from './slot-share.ts';

/**
 * Rows claimed for one dispatcher (by its claims, or handed over by the outbox) that wait in
 * memory for a slot, with what fairness and leases need: how many each organization has queued,
 * when each row's lease ends, and which organizations may have older rows left in the table.
 */
export class HeldRows {
  private readonly ready: ClaimedDelivery[] = [];
  /** By this process's clock, counted from before the database set the lease: conservative. */
  private readonly leaseEnds = new Map<string, number>();
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
    return this.ready.length;
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
      this.leaseEnds.set(row.id, since + this.leaseMs);
      if (!reserved) this.count(row.organization_id, 1);
    }
    this.ready.push(...rows);
  }

  /** Rows of these subscriptions are not sent from memory: they are claimed again when their lease ends. */
  drop(subscriptionIds: ReadonlySet<string>): void {
    for (let index = this.ready.length - 1; index >= 0; index--) {
      const row = this.ready[index]!;
      if (!subscriptionIds.has(row.subscription_id)) continue;
      this.ready.splice(index, 1);
      this.count(row.organization_id, -1);
      this.leaseEnds.delete(row.id);
      this.backlog.add(row.organization_id);
    }
  }

  /** A claim that skipped `skipped` organizations came back empty. */
  drained(skipped: readonly string[]): void {
    this.backlog.drained(skipped);
  }

  /**
   * The next row a free slot may start, as the organizations' shares allow. A row with too little
   * lease left is dropped: another dispatcher could claim it meanwhile. It stays claimed in the
   * table and is claimed again, in its turn, when the lease ends.
   */
  next(slots: SlotShare, now: number): ClaimedDelivery | undefined {
    for (let index = slots.pick(this.ready, now); index !== -1; index = slots.pick(this.ready, now)) {
      const [row] = this.ready.splice(index, 1) as [ClaimedDelivery];
      this.count(row.organization_id, -1);
      const leaseEnd = this.leaseEnds.get(row.id)!;
      this.leaseEnds.delete(row.id);
      if (leaseEnd - now >= this.attemptMs) return row;
      this.backlog.add(row.organization_id);
    }
    return undefined;
  }

  /**
   * Rows that may start as soon as a slot is free, each organization counted for at most its
   * share: one organization's deep queue must not stop the claims that bring the others' rows.
   */
  startable(slots: SlotShare, now: number): number {
    const byOrganization = new Map<string, number>();
    for (const row of this.ready) {
      if (slots.blocked(row.organization_id, now)) continue;
      byOrganization.set(row.organization_id, Math.min(slots.share, (byOrganization.get(row.organization_id) ?? 0) + 1));
    }
    let count = 0;
    for (const n of byOrganization.values()) count += n;
    return count;
  }

  private count(organizationId: string, change: 1 | -1): void {
    const queued = (this.queued.get(organizationId) ?? 0) + change;
    if (queued === 0) this.queued.delete(organizationId);
    else this.queued.set(organizationId, queued);
  }
}
