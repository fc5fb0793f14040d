import type { Knex } from 'knex';
import { recordAttempts, type AttemptRecord, type ClaimedDelivery } from './delivery-store.ts';

interface Pending {
  delivery: ClaimedDelivery;
  record: AttemptRecord;
  resolve: (moved: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Writes attempt results in batches: whatever finished while the previous write ran goes in the
 * next one. At a thousand deliveries a second this turns a thousand statements into a few dozen,
 * with no added wait when traffic is light (a lone result is written at once).
 */
export class AttemptRecorder {
  private pending: Pending[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    private readonly db: Knex,
    private readonly maxBatch = 500,
  ) {}

  /** Resolves with whether the delivery moved on (its claim still held). */
  record(delivery: ClaimedDelivery, record: AttemptRecord): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pending.push({ delivery, record, resolve, reject });
      this.writing ??= this.drain();
    });
  }

  /** Results waiting for a write. */
  get backlog(): number {
    return this.pending.length;
  }

  private async drain(): Promise<void> {
    // Let the results of the same tick join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.pending.length) {
      const batch = this.pending.splice(0, this.maxBatch);
      try {
        const moved = await recordAttempts(this.db, batch);
        for (const item of batch) item.resolve(moved.has(item.delivery.id));
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
    this.writing = undefined;
  }
}
