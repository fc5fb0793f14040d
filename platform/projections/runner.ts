import type Logger from 'bunyan';
import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import {
  START,
  comparePositions,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '../eventstore/port.ts';
import { AdvisoryLocks, LockNamespace } from '../database/advisory-lock.ts';
import { lockCheckpoint, readCheckpoints, saveCheckpoint } from './checkpoints.ts';
import type { Projection } from './projection.ts';

/** Thrown inside a batch when the stored checkpoint is not where this runner left it (a rebuild reset it). */
class CheckpointMoved extends Error {}

/**
 * Apply one batch: lock the checkpoint row, check nobody moved it, let the projection write,
 * store the new checkpoint, all in one transaction. Shared by the live runner and the rebuild.
 */
export async function applyBatch(
  db: Knex,
  projection: Projection,
  expected: Position,
  events: readonly RecordedEvent[],
  checkpoint: Position,
): Promise<void> {
  await db.transaction(async (trx) => {
    const current = await lockCheckpoint(trx, projection.name);
    if (comparePositions(current, expected) !== 0) throw new CheckpointMoved(projection.name);
    const handled = new Set(projection.eventTypes);
    const relevant = events.filter((e) => handled.has(e.type));
    if (relevant.length) await projection.handle(relevant, trx);
    await saveCheckpoint(trx, projection.name, checkpoint);
  });
}

/**
 * A projection's checkpoint: `stored` is what its row holds, `reached` how far the projection
 * has really got. A batch with events is written at once, with its checkpoint. A batch that
 * only moves past other projections' events is kept in memory and stored by flush(), at most
 * once a second: without this, every append anywhere made every projection commit a
 * transaction. Same-process read-your-writes sees `reached` at once (localPosition); another
 * process sees it after the flush. Writes are queued so they never race each other.
 */
class CheckpointWriter {
  stored: Position;
  private reached: Position;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Knex,
    private readonly projection: Projection,
    start: Position,
  ) {
    this.stored = start;
    this.reached = start;
  }

  private write(events: readonly RecordedEvent[], position: Position): Promise<void> {
    const next = this.queue.then(async () => {
      if (comparePositions(position, this.stored) <= 0 && events.length === 0) return;
      await applyBatch(this.db, this.projection, this.stored, events, position);
      this.stored = position;
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  async advance(events: readonly RecordedEvent[], position: Position): Promise<void> {
    this.reached = position;
    if (events.length > 0) await this.write(events, position);
  }

  flush(): Promise<void> {
    return this.write([], this.reached);
  }

  /** Throws CheckpointMoved when a rebuild reset the stored checkpoint behind this runner. */
  async flushAndCheck(): Promise<void> {
    const at = (await readCheckpoints(this.db, [this.projection.name])).get(this.projection.name)?.position;
    if (at && comparePositions(at, this.stored) < 0) throw new CheckpointMoved(this.projection.name);
    await this.flush();
  }
}

export interface RunnerOptions {
  batchSize: number;
  log: Logger;
  /** How long to wait before trying to take a projection that another process holds. */
  lockRetryMs?: number;
  /** How often a running projection checks whether a rebuild reset its checkpoint. */
  resetCheckMs?: number;
}

/**
 * Runs projections in this process. Each projection is run by one process at a time across the
 * deployment: its PostgreSQL advisory lock is held on a connection kept for that purpose.
 */
export class ProjectionRunner {
  private readonly progress = new EventEmitter();
  private readonly positions = new Map<string, Position>();
  private readonly locks: AdvisoryLocks;
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  private readonly stops = new Set<() => Promise<void>>();

  constructor(
    private readonly db: Knex,
    private readonly store: EventStore,
    private readonly projections: readonly Projection[],
    private readonly options: RunnerOptions,
  ) {
    this.progress.setMaxListeners(0);
    this.locks = new AdvisoryLocks(db);
  }

  /** Positions reached by projections this process runs, for read-your-writes without a query. */
  localPosition(name: string): Position | undefined {
    return this.positions.get(name);
  }

  onProgress(listener: () => void): () => void {
    this.progress.on('progress', listener);
    return () => this.progress.off('progress', listener);
  }

  async start(): Promise<void> {
    for (const projection of this.projections) this.loops.push(this.run(projection));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.stops].map((stop) => stop()));
    await Promise.all(this.loops);
    await this.locks.close();
  }


  private async sleep(ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
  }

  private async run(projection: Projection): Promise<void> {
    const log = this.options.log.child({ projection: projection.name });
    let locked = false;
    let failures = 0;
    while (!this.stopping) {
      try {
        if (!locked) locked = await this.locks.tryLock(LockNamespace.projection, projection.name);
        if (!locked) {
          await this.sleep(this.options.lockRetryMs ?? 1000);
          continue;
        }
        const stored = (await readCheckpoints(this.db, [projection.name])).get(projection.name);
        const checkpoint = new CheckpointWriter(this.db, projection, stored?.position ?? START);
        let failure: unknown;
        const subscription = this.store.subscribeToAll(
          async (events, position) => {
            await checkpoint.advance(events, position);
            this.positions.set(projection.name, position);
            this.progress.emit('progress');
            failures = 0;
          },
          {
            after: checkpoint.stored,
            filter: { eventTypes: projection.eventTypes },
            maxCount: this.options.batchSize,
            onError: (error) => {
              failure = error;
            },
          },
        );
        const stop = () => subscription.stop();
        this.stops.add(stop);
        // stop() may have run while this loop was taking the lock or reading its checkpoint: it
        // did not see this subscription, so stop it here or stop() would wait for it forever.
        if (this.stopping) void subscription.stop();
        // Now and then: store a checkpoint that only moved past other projections' events, and
        // notice a rebuild that reset it (a caught-up runner runs no batch that would see it).
        const watch = setInterval(() => {
          checkpoint
            .flushAndCheck()
            .catch((error) => {
              failure = error;
              void subscription.stop();
            });
        }, this.options.resetCheckMs ?? 1000);
        await subscription.done;
        clearInterval(watch);
        if (!failure) await checkpoint.flush().catch(() => undefined);
        this.stops.delete(stop);
        if (failure instanceof CheckpointMoved) {
          log.info('checkpoint was reset (rebuild): starting again from it');
        } else if (failure) {
          failures++;
          log.error({ err: failure }, 'projection batch failed; retrying');
          await this.sleep(Math.min(30_000, 200 * 2 ** failures));
        }
      } catch (error) {
        failures++;
        log.error({ err: error }, 'projection runner failed; retrying');
        await this.sleep(Math.min(30_000, 200 * 2 ** failures));
      }
    }
  }
}
