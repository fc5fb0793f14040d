import type Logger from 'bunyan';
import type { Knex } from 'knex';
import type { Position } from '../platform/eventstore/port.ts';
import { WakeablePause } from './wakeable-pause.ts';

/**
 * Writes of one follower's checkpoint at most this often, but for the last one (flush). Under a
 * burst a follower finished a reaction every few milliseconds, and each moved the checkpoint: a
 * durable commit per few events, the most frequent statement of a webhook burst (860 of about
 * 3,800). A crash replays at most this much more, which reactions tolerate anyway.
 */
const MIN_INTERVAL_MS = 100;

/**
 * Writes a follower's checkpoint without making the reactions wait: one write in flight at a
 * time, at most one per MIN_INTERVAL_MS, and positions that arrive meanwhile collapse into the
 * latest. A failed write is logged and left to the next one (a checkpoint that lags only makes a
 * restart replay more).
 */
export class CheckpointSaver {
  private latest: Position | undefined;
  private saving: Promise<void> | undefined;
  private discarded = false;
  private flushing = false;
  private readonly interval = new WakeablePause();

  constructor(
    private readonly db: Knex,
    private readonly name: string,
    private readonly log: Logger,
  ) {}

  /** Save nothing more: the writer lost the right to (its lock went with its session). */
  discard(): void {
    this.discarded = true;
    this.latest = undefined;
  }

  save(position: Position): void {
    if (this.discarded) return;
    this.latest = position;
    this.saving ??= this.writeLatest();
  }

  /** Resolves once the latest position given is written (or its write failed), without waiting out the interval. */
  async flush(): Promise<void> {
    this.flushing = true;
    this.interval.wake();
    try {
      await this.saving;
    } finally {
      this.flushing = false;
    }
  }

  private async writeLatest(): Promise<void> {
    for (let position = this.latest; position; position = this.latest) {
      this.latest = undefined;
      try {
        await this.db('projection_checkpoints')
          .where({ name: this.name })
          .update({ commit_position: position.commit.toString(), prepare_position: position.prepare.toString(), updated_at: this.db.fn.now() });
      } catch (error) {
        this.log.warn({ err: error, checkpoint: this.name }, 'checkpoint not saved; the next one will be');
      }
      if (!this.flushing) await this.interval.wait(MIN_INTERVAL_MS);
    }
    this.saving = undefined;
  }
}
