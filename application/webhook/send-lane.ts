import type { AttemptOutcome } from '../../domain/webhook/retry-policy.ts';
import { OrganizationQueues } from './organization-queues.ts';
import type { Attempt } from './sender.ts';
import { SlotShare } from './slot-share.ts';

/** A delivery given to the lane to attempt once. */
export interface LaneItem {
  id: string;
  organization_id: string;
  subscription_id: string;
  attempt: Attempt;
  /**
   * Epoch ms after which it must not start: its claim's lease would not outlast the attempt, and
   * another dispatcher could claim it meanwhile.
   */
  startBy: number;
}

export interface LaneResult {
  id: string;
  /** Epoch ms when the attempt started. */
  startedAt: number;
  /** null: not attempted, its startBy passed while it waited for a slot. */
  outcome: AttemptOutcome | null;
}

/**
 * The HTTP attempts themselves: a short queue per organization and the slots (concurrent attempts)
 * shared between organizations by SlotShare. A freed slot starts the next attempt at once, on this
 * lane's own event loop: when the lane runs on a thread of its own, the appends and projections of
 * the main thread do not add their latency to every slot's turn. Results are reported in batches,
 * one per turn of the loop.
 */
export class SendLane {
  private readonly waiting = new OrganizationQueues<LaneItem>();
  private readonly slots: SlotShare;
  private results: LaneResult[] = [];

  constructor(
    concurrency: number,
    private readonly send: (attempt: Attempt) => Promise<AttemptOutcome>,
    private readonly report: (results: LaneResult[]) => void,
  ) {
    this.slots = new SlotShare(concurrency);
  }

  add(items: readonly LaneItem[]): void {
    for (const item of items) this.waiting.push(item.organization_id, item);
    this.fill();
  }

  /** Items of these subscriptions not started yet are taken back; returns their ids. */
  drop(subscriptionIds: readonly string[]): string[] {
    const ids = new Set(subscriptionIds);
    const removed = this.waiting.remove((item) => ids.has(item.subscription_id));
    return [...removed.values()].flat().map((item) => item.id);
  }

  private fill(): void {
    const now = Date.now();
    for (;;) {
      const item = this.waiting.takeOldest((o) => this.slots.underShare(o)) ?? this.waiting.takeOldest((o) => this.slots.mayBorrow(o, now));
      if (!item) return;
      if (now > item.startBy) this.done({ id: item.id, startedAt: now, outcome: null });
      else this.start(item, now);
    }
  }

  private start(item: LaneItem, now: number): void {
    this.slots.start(item, now);
    void this.send(item.attempt).then((outcome) => {
      this.slots.finish(item, Date.now());
      this.done({ id: item.id, startedAt: now, outcome });
      this.fill();
    });
  }

  private done(result: LaneResult): void {
    if (!this.results.length) setImmediate(() => this.flush());
    this.results.push(result);
  }

  private flush(): void {
    const results = this.results;
    this.results = [];
    this.report(results);
  }
}
