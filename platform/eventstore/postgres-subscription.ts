import { comparePositions, type Position, type Subscription, type SubscriptionHandler } from './port.ts';
import type { PageResult } from './postgres.ts';

export interface SubscriptionSource {
  readPage(after: Position, maxCount: number): Promise<PageResult>;
  pollIntervalMs: number;
  onReadError?: (error: unknown) => void;
}

const MAX_READ_BACKOFF_MS = 5000;

/**
 * A catch-up subscription by polling: read a page after the checkpoint, hand it over, repeat at
 * once while pages come back full, otherwise sleep until the poll interval ends or an append
 * through the same store wakes it. No LISTEN/NOTIFY: NOTIFY takes a cluster-wide lock at commit
 * and would serialize every append.
 */
export class PollingSubscription implements Subscription {
  readonly done: Promise<void>;
  private stopped = false;
  /** Set by wake(): an append happened since the last read began, so do not sleep. */
  private pending = false;
  private interruptSleep: (() => void) | undefined;

  constructor(
    private readonly source: SubscriptionSource,
    private readonly handler: SubscriptionHandler,
    private readonly options: { after: Position; maxCount: number; progressIntervalMs: number; onError?: (error: unknown) => void },
  ) {
    this.done = this.run();
  }

  wake(): void {
    this.pending = true;
    this.interruptSleep?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.interruptSleep?.();
    await this.done;
  }

  private async run(): Promise<void> {
    // Where the next read starts. It may move ahead of what the handler was last given when a
    // range held no event at all: the handler's checkpoint then lags, harmlessly, and the handler
    // is not called merely because unrelated transactions (its own checkpoint writes, say) moved
    // the snapshot horizon.
    let cursor = this.options.after;
    let failures = 0;
    // The cursor passed events the handler does not want and it has not been told yet; when it
    // last was called. Telling it at every such page made each process manager store its
    // checkpoint (a commit) for every unrelated append.
    let owed = false;
    let calledAt = 0;
    // Let the constructor return before the first read.
    await Promise.resolve();
    while (!this.stopped) {
      this.pending = false;
      let page: PageResult;
      try {
        page = await this.source.readPage(cursor, this.options.maxCount);
        failures = 0;
      } catch (error) {
        if (this.stopped) break;
        failures++;
        this.source.onReadError?.(error);
        await this.sleep(Math.min(this.source.pollIntervalMs * 2 ** failures, MAX_READ_BACKOFF_MS));
        continue;
      }
      if (this.stopped) break;

      const advanced = comparePositions(page.checkpoint, cursor) > 0;
      if (advanced && page.passedEvents) owed = true;
      if (page.events.length > 0 || (owed && Date.now() - calledAt >= this.options.progressIntervalMs)) {
        try {
          await this.handler(page.events, page.checkpoint);
          owed = false;
          calledAt = Date.now();
        } catch (error) {
          this.stopped = true;
          this.options.onError?.(error);
          break;
        }
      }
      if (advanced) cursor = page.checkpoint;

      if (!page.more && !this.pending) await this.sleep(this.source.pollIntervalMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.interruptSleep = () => {
        this.interruptSleep = undefined;
        done();
      };
    });
  }
}
