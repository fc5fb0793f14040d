import type Logger from 'bunyan';
import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import { START, comparePositions, type EventStore, type Position } from '../eventstore/port.ts';
import { CheckpointMoved, LiveTarget, writeBatch, writeWithParking } from './apply.ts';
import { readCheckpoints } from './checkpoints.ts';
import { LeaseLost, newLeaseOwner, releaseLease, renewLease, tryAcquireLease, type Lease } from './leases.ts';
import { projectionContext, type Projection, type ProjectionContext } from './projection.ts';

export interface RunnerOptions {
  batchSize: number;
  log: Logger;
  /** How long to wait before trying again to take a projection that another process holds. */
  lockRetryMs?: number;
  /** How often progress past other projections' events is stored, and a rebuild's switch noticed. */
  flushMs?: number;
  /** Lease lifetime without renewal: how long a crashed holder keeps others waiting. */
  leaseMs?: number;
  /** Tries of one event, alone, before it is parked. */
  maxAttempts?: number;
  /** First wait between those tries. */
  retryDelayMs?: number;
}

/**
 * Runs projections in this process. Each projection is run by one process at a time across the
 * deployment: it holds the projection's lease (leases.ts), renews it, and every batch commits only
 * under its token, so a holder that lost it (paused, cut off) stops and cannot write.
 */
export class ProjectionRunner {
  private readonly progress = new EventEmitter();
  private readonly positions = new Map<string, Position>();
  private readonly held = new Map<string, Lease>();
  private readonly owner = newLeaseOwner();
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  private readonly stops = new Set<() => Promise<void>>();
  private readonly sleepers = new Set<() => void>();
  private readonly context: ProjectionContext;

  constructor(
    private readonly db: Knex,
    private readonly store: EventStore,
    private readonly projections: readonly Projection[],
    private readonly options: RunnerOptions,
  ) {
    this.progress.setMaxListeners(0);
    this.context = projectionContext(store);
  }

  /** Positions reached by projections this process runs, for read-your-writes without a query. */
  localPosition(name: string): Position | undefined {
    return this.positions.get(name);
  }

  /** Whether this process holds the projection's lease right now. */
  holds(name: string): boolean {
    return this.held.has(name);
  }

  /**
   * Called after each step of a projection: `wrote` when it wrote events of its types, not when it
   * only moved past others' (a dispatcher nudged by those would look for rows nobody wrote).
   */
  onProgress(listener: (wrote: boolean) => void): () => void {
    this.progress.on('progress', listener);
    return () => this.progress.off('progress', listener);
  }

  async start(): Promise<void> {
    for (const projection of this.projections) this.loops.push(this.run(projection));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const wake of this.sleepers) wake();
    await Promise.all([...this.stops].map((stop) => stop()));
    await Promise.all(this.loops);
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? 15_000;
  }

  /** A pause that stop() cuts short. */
  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  private async run(projection: Projection): Promise<void> {
    const log = this.options.log.child({ projection: projection.name });
    let failures = 0;
    while (!this.stopping) {
      try {
        let lease = this.held.get(projection.name);
        if (!lease) {
          lease = (await tryAcquireLease(this.db, projection.name, this.owner, this.leaseMs)) ?? undefined;
          if (!lease) {
            await this.sleep(this.options.lockRetryMs ?? 1000);
            continue;
          }
          this.held.set(projection.name, lease);
          log.info({ token: lease.token }, 'took the projection lease');
        }
        const failure = await this.follow(projection, lease, log, () => (failures = 0));
        if (failure instanceof CheckpointMoved) {
          log.info('checkpoint moved (a rebuild switched tables): starting again from it');
        } else if (failure instanceof LeaseLost) {
          this.held.delete(projection.name);
          log.warn({ token: lease.token }, 'projection lease lost: stopped projecting');
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
    const lease = this.held.get(projection.name);
    this.held.delete(projection.name);
    if (lease) await releaseLease(this.db, lease).catch((error) => log.warn({ err: error }, 'lease not released; it expires by itself'));
  }

  /**
   * Holding the lease: follow the store from the stored checkpoint until stopped or until
   * something ends the subscription. Returns what ended it (nothing when stopped).
   */
  private async follow(projection: Projection, lease: Lease, log: Logger, succeeded: () => void): Promise<unknown> {
    const name = projection.name;
    const stored = (await readCheckpoints(this.db, [name])).get(name)?.position ?? START;
    const target = new LiveTarget(name, lease, stored);
    // How far the read model is right: batches written, plus ranges without any event of its types.
    let reached = stored;
    // Batches and flushes both write the checkpoint: one at a time, in order.
    let queue: Promise<unknown> = Promise.resolve();
    const serial = <T>(work: () => Promise<T>): Promise<T> => {
      const next = queue.then(work);
      queue = next.catch(() => undefined);
      return next;
    };
    const flush = () =>
      serial(async () => {
        // Writing the progress compares the checkpoint (LiveTarget.begin); a runner with nothing to
        // write writes no batch that would notice a rebuild's switch, so it looks for one.
        if (comparePositions(reached, target.stored) > 0) return writeBatch(this.db, this.context, projection, target, [], reached);
        const at = (await readCheckpoints(this.db, [name])).get(name)?.position ?? START;
        if (comparePositions(at, target.stored) !== 0) throw new CheckpointMoved(name);
      });

    let failure: unknown;
    const subscription = this.store.subscribeToAll(
      async (events, position) => {
        if (events.length) {
          await serial(() =>
            writeWithParking(this.db, this.context, projection, target, events, position, {
              maxAttempts: this.options.maxAttempts ?? 3,
              retryDelayMs: this.options.retryDelayMs ?? 100,
              onParked: (event, error) => log.error({ err: error, eventId: event.id, eventType: event.type, stream: event.streamName }, 'event parked: the projection could not apply it'),
            }),
          );
        }
        // Only now: a batch that failed must never be stored as reached by a later flush.
        reached = position;
        this.positions.set(name, position);
        this.progress.emit('progress', events.length > 0);
        succeeded();
      },
      {
        after: stored,
        filter: { eventTypes: projection.eventTypes },
        maxCount: this.options.batchSize,
        // Progress past other projections' events costs nothing here (remembered, flushed once a
        // second), and read-your-writes waits on it.
        progressIntervalMs: 0,
        onError: (error) => {
          failure ??= error;
        },
      },
    );
    const end = (error: unknown) => {
      failure ??= error;
      void subscription.stop();
    };
    const stop = () => subscription.stop();
    this.stops.add(stop);
    // stop() may have run while this loop was taking the lease or reading its checkpoint: it did
    // not see this subscription, so stop it here or stop() would wait for it forever.
    if (this.stopping) void subscription.stop();

    const flusher = setInterval(() => flush().catch(end), this.options.flushMs ?? 1000);
    let renewedAt = Date.now();
    const renewer = setInterval(() => {
      renewLease(this.db, lease, this.leaseMs).then(
        (held) => (held ? (renewedAt = Date.now()) : end(new LeaseLost(lease))),
        (error) => {
          log.warn({ err: error }, 'lease not renewed');
          // Past its end another process may hold it: stop before the fence has to say so.
          if (Date.now() - renewedAt > this.leaseMs) end(new LeaseLost(lease));
        },
      );
    }, this.leaseMs / 3);

    await subscription.done;
    clearInterval(flusher);
    clearInterval(renewer);
    if (!failure) await flush().catch((error) => (failure = error));
    await serial(async () => undefined);
    this.stops.delete(stop);
    if (failure) this.positions.delete(name);
    return failure;
  }
}
