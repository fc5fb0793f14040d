import type Logger from 'bunyan';
import type { Knex } from 'knex';
import { setMaxListeners } from 'node:events';
import { ReportEventTypes } from '../../../domain/report/public-events.ts';
import type { AppContext } from '../../context.ts';
import { AdvisoryLocks, LockNamespace } from '../../../platform/database/advisory-lock.ts';
import { comparePositions, positionToString, type Position, type RecordedEvent, type Subscription } from '../../../platform/eventstore/port.ts';
import type { Worker } from '../../worker.ts';
import { handleCommand } from '../../command-handler.ts';
import { reportDecider } from '../../../domain/report/decider.ts';
import { reportStream } from '../../../domain/report/events.ts';
import { PolicyVersions } from '../../credit-policy/versions.ts';
import { createSourceCatalog } from '../sources/index.ts';
import type { SourceCatalog } from '../sources/port.ts';
import { processReport, type ProcessingDeps } from './report-process.ts';
import { OrderedProgress, Slots } from './progress.ts';

/** Its checkpoint row in projection_checkpoints; the prefix keeps it apart from projection names. */
export const PROCESSING_CHECKPOINT = 'process:report-processing';
/**
 * How far reports have been handed to a worker: claimed before their sources are queried, so of
 * two workers on one checkpoint (a lost lock) only the one that moves this row queries them.
 */
export const PROCESSING_CLAIM = 'process:report-processing:claimed';
const SAVE_EVERY_MS = 200;
/** Attempts at one report before it is recorded FAILED (ReportProcessingFailed). */
export const MAX_REPORT_ATTEMPTS = 5;
const STAND_DOWN_MARGIN_MS = 1000;

/** Another worker moved a checkpoint this one holds: it is no longer the only one, so it stops. */
class CheckpointTaken extends Error {
  constructor(name: string, message = `checkpoint ${name} was moved by another worker`) {
    super(message);
    this.name = 'CheckpointTaken';
  }
}

async function readCheckpoint(db: Knex, name: string): Promise<Position> {
  await db('projection_checkpoints').insert({ name }).onConflict('name').ignore();
  const row = await db('projection_checkpoints').where({ name }).first();
  return { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) };
}

/** Move a checkpoint only from where this worker last left it; false when another worker moved it. */
async function compareAndSet(db: Knex, name: string, expected: Position, next: Position): Promise<boolean> {
  const moved = await db('projection_checkpoints')
    .where({ name, commit_position: expected.commit.toString(), prepare_position: expected.prepare.toString() })
    .update({ commit_position: next.commit.toString(), prepare_position: next.prepare.toString(), updated_at: db.fn.now() });
  return moved === 1;
}

/**
 * The report process manager: reacts to ReportRequested by querying the sources and recording
 * the decision. One process runs it at a time (advisory lock); it works on many reports at once
 * (REPORT_PROCESSING_CONCURRENCY) and stores its checkpoint only behind finished reports, so a
 * report interrupted by a crash or a stop is picked up again and finished after a restart.
 */
export class ReportProcessingWorker implements Worker {
  readonly name = 'report-processing';
  /** `sources` replaces the configured catalog (tests count the queries). */
  constructor(private readonly options: { sources?: SourceCatalog } = {}) {}

  readonly role = 'projector' as const;
  private stopping = false;
  private readonly stopped = new AbortController();
  private loop: Promise<void> | undefined;
  private subscription: Subscription | undefined;
  private locks: AdvisoryLocks | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private db!: Knex;
  private log!: Logger;
  private sources: SourceCatalog | undefined;

  async start(app: AppContext): Promise<void> {
    this.db = app.db;
    // Every source query in flight listens for the stop: far more than the default 10.
    setMaxListeners(0, this.stopped.signal);
    this.log = app.log.child({ worker: this.name });
    this.sources = this.options.sources ?? createSourceCatalog(app.config, app.db);
    const deps: ProcessingDeps = {
      store: app.store,
      sources: this.sources,
      clock: app.clock,
      sourceTimeoutMs: app.config.SOURCE_TIMEOUT_MS,
      policies: new PolicyVersions(app.store),
      log: this.log,
      stop: this.stopped.signal,
    };
    // Unprepared, the first reports would wait on it within their source deadline.
    await deps.sources.prepare?.().catch((error: unknown) => this.log.error({ err: error }, 'sources not prepared; the first reports prepare them'));
    this.locks = new AdvisoryLocks(app.db);
    this.loop = this.run(app, deps);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.stopped.abort();
    await this.subscription?.stop();
    await this.loop;
    await this.locks?.close();
    await this.sources?.close?.();
  }

  /** Sleep, cut short by stop(). */
  private pause(ms: number): Promise<void> {
    if (this.stopped.signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const signal = this.stopped.signal;
      signal.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
    });
  }

  private async run(app: AppContext, deps: ProcessingDeps): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      try {
        if (!(await this.locks!.tryLock(LockNamespace.processManager, this.name))) {
          await this.pause(1000);
          continue;
        }
        await this.follow(app, deps);
        failures = 0;
      } catch (error) {
        if (error instanceof CheckpointTaken) {
          // Our lock was lost (its session ended): compete for it again on a fresh session, once the
          // other worker's reports in flight have had their sources' answers, or resuming them
          // would query those sources again.
          this.log.warn({ err: error }, 'another worker runs report processing; this one stands down');
          await this.locks!.close();
          this.locks = new AdvisoryLocks(app.db);
          await this.pause(deps.sourceTimeoutMs + STAND_DOWN_MARGIN_MS);
          continue;
        }
        failures++;
        this.log.error({ err: error }, 'report processing failed; retrying');
        await this.pause(Math.min(30_000, 200 * 2 ** failures));
      }
    }
  }

  /**
   * Holding the lock: follow ReportRequested from the checkpoint until stopped. Reports between
   * the checkpoint and the claim were handed out before and may be unfinished: they are resumed
   * from their streams. Later ones are claimed, batch by batch, before any source is queried.
   */
  private async follow(app: AppContext, deps: ProcessingDeps): Promise<void> {
    const slots = new Slots(app.config.REPORT_PROCESSING_CONCURRENCY);
    const progress = new OrderedProgress();
    let saved = await readCheckpoint(this.db, PROCESSING_CHECKPOINT);
    let claimed = await readCheckpoint(this.db, PROCESSING_CLAIM);
    const resumeUpTo = claimed;
    this.log.info({ checkpoint: positionToString(saved), claimed: positionToString(claimed) }, 'following report requests');
    let failure: unknown;
    // One write at a time: a slow write (a loaded database) overlapped by the next timer's would
    // find the position it had just written, not `saved`, and stand the worker down for nothing.
    let writing: Promise<void> = Promise.resolve();
    const persist = () => {
      const next = writing.then(async () => {
        const safe = progress.safePosition;
        if (!safe || comparePositions(safe, saved) <= 0) return;
        if (!(await compareAndSet(this.db, PROCESSING_CHECKPOINT, saved, safe))) throw new CheckpointTaken(PROCESSING_CHECKPOINT);
        saved = safe;
      });
      writing = next.catch(() => undefined);
      return next;
    };
    // The lock went with its session: another worker may claim from here on. Stand down at once,
    // as when the claim is found taken, instead of learning it at the next compare-and-set.
    const lockLost = () => new CheckpointTaken(PROCESSING_CLAIM, 'the advisory lock went with its session');
    const unwatch = this.locks!.onLost(() => {
      failure ??= lockLost();
      void this.subscription?.stop();
    });
    if (!this.locks!.holding) {
      unwatch();
      throw lockLost();
    }
    const saver = setInterval(
      () =>
        persist().catch((error) => {
          if (error instanceof CheckpointTaken) {
            failure ??= error;
            void this.subscription?.stop();
          } else this.log.warn({ err: error }, 'checkpoint not saved');
        }),
      SAVE_EVERY_MS,
    );
    try {
      this.subscription = app.store.subscribeToAll(
        async (events: RecordedEvent[], checkpoint: Position) => {
          if (this.stopping) return;
          if (comparePositions(checkpoint, claimed) > 0) {
            if (!(await compareAndSet(this.db, PROCESSING_CLAIM, claimed, checkpoint))) throw new CheckpointTaken(PROCESSING_CLAIM);
            claimed = checkpoint;
          }
          for (const event of events) {
            // Stopping: leave the rest of the batch, and the checkpoint, to the next start.
            if (this.stopping) return;
            await slots.acquire();
            const done = progress.begin(event.position);
            const reportId = String(event.data.reportId);
            // A resumed report may be half recorded: it reads its stream instead of starting from the request.
            const requested = comparePositions(event.position, resumeUpTo) > 0 ? event : undefined;
            const work = this.processUntilParked(deps, slots, reportId, requested)
              .then(done, (error) => this.log.warn({ err: error, reportId }, 'report left for the next start'))
              .finally(() => this.inFlight.delete(work));
            this.inFlight.add(work);
          }
          progress.mark(checkpoint);
        },
        {
          after: saved,
          filter: { eventTypes: [ReportEventTypes.requested] },
          maxCount: Math.max(100, app.config.REPORT_PROCESSING_CONCURRENCY * 2),
          onError: (error) => {
            failure ??= error;
          },
        },
      );
      // stop() may have run while this round took its lock or read its checkpoints: it found no
      // subscription to stop, so stop this one here, or stop() would wait for it forever.
      if (this.stopping) void this.subscription.stop();
      await this.subscription.done;
      // Reports in flight record what they have and stop (their sources were told to): then save.
      await Promise.allSettled([...this.inFlight]);
      if (!(failure instanceof CheckpointTaken)) await persist();
    } finally {
      unwatch();
      clearInterval(saver);
      this.subscription = undefined;
    }
    if (failure) throw failure;
  }

  /**
   * Process one report, entered holding a slot. A failure (database away, a source adapter that
   * throws outside its contract, a policy version missing) is retried with backoff, without the
   * slot so that other reports go on meanwhile; after MAX_REPORT_ATTEMPTS the report is recorded
   * FAILED and the worker moves on. On stop it is left to the next start.
   */
  private async processUntilParked(deps: ProcessingDeps, slots: Slots, reportId: string, requested: RecordedEvent | undefined): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        // A retry reads the stream: the first attempt may have recorded part of the report.
        return await processReport(deps, reportId, attempt === 1 ? requested : undefined);
      } catch (error) {
        if (this.stopping) throw error;
        if (attempt >= MAX_REPORT_ATTEMPTS) return await this.park(deps, reportId, attempt, error);
        this.log.warn({ err: error, reportId, attempt }, 'report processing attempt failed');
      } finally {
        slots.release();
      }
      await this.pause(100 * 2 ** attempt);
      await slots.acquire();
    }
  }

  private async park(deps: ProcessingDeps, reportId: string, attempts: number, error: unknown): Promise<void> {
    this.log.error({ err: error, reportId, attempts }, 'report processing failed for good: recorded FAILED');
    try {
      await handleCommand(deps.store, reportStream(reportId), reportDecider, { type: 'FailProcessing', attempts, at: deps.clock.now().toISOString() });
    } catch (recordError) {
      // Not even the failure can be written: the report stays as it is, and the others go on.
      this.log.error({ err: recordError, reportId }, 'report failure could not be recorded');
    }
  }
}
