import type Logger from 'bunyan';
import type { Knex } from 'knex';
import type { Position } from '../platform/eventstore/port.ts';

/**
 * Writes a follower's checkpoint without making the reactions wait: one write in flight at a
 * time, and positions that arrive meanwhile collapse into the latest. A failed write is logged and
 * left to the next one (a checkpoint that lags only makes a restart replay more).
 */
export class CheckpointSaver {
  private latest: Position | undefined;
  private saving: Promise<void> | undefined;
  private discarded = false;

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

  /** Resolves once the latest position given is written (or its write failed). */
  async flush(): Promise<void> {
    await this.saving;
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
    }
    this.saving = undefined;
  }
}
