import type Logger from 'bunyan';
import type { Knex } from 'knex';
import { setMaxListeners } from 'node:events';
import { ReportEventTypes } from '../../../domain/report/public-events.ts';
import type { AppContext } from '../../context.ts';
import { AdvisoryLocks, LockNamespace } from '../../../platform/database/advisory-lock.ts';
import { comparePositions, START, type Position, type RecordedEvent, type Subscription } from '../../../platform/eventstore/port.ts';
import type { Worker } from '../../worker.ts';
import { PolicyVersions } from '../../credit-policy/versions.ts';
import { createSourceCatalog } from '../sources/index.ts';
import { processReport, type ProcessingDeps } from './process-report.ts';
import { OrderedProgress, Slots } from './progress.ts';

/** Its checkpoint row in projection_checkpoints; the prefix keeps it apart from projection names. */
export const PROCESSING_CHECKPOINT = 'process:report-processing';
const SAVE_EVERY_MS = 200;

async function readCheckpoint(db: Knex): Promise<Position> {
  const row = await db('projection_checkpoints').where({ name: PROCESSING_CHECKPOINT }).first();
  return row ? { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) } : START;
}

async function saveCheckpoint(db: Knex, position: Position): Promise<void> {
  const values = { commit_position: position.commit.toString(), prepare_position: position.prepare.toString(), updated_at: db.fn.now() };
  await db('projection_checkpoints').insert({ name: PROCESSING_CHECKPOINT, ...values }).onConflict('name').merge();
}


/**
 * The report process manager: reacts to ReportRequested by querying the sources and recording
 * the decision. One process runs it at a time (advisory lock); it works on many reports at once
 * (REPORT_PROCESSING_CONCURRENCY) and stores its checkpoint only behind finished reports, so a
 * report interrupted by a crash or a stop is picked up again and finished after a restart.
 */
export class ReportProcessingWorker implements Worker {
  readonly name = 'report-processing';
  readonly role = 'projector' as const;
  private stopping = false;
  private readonly stopped = new AbortController();
  private loop: Promise<void> | undefined;
  private subscription: Subscription | undefined;
  private locks: AdvisoryLocks | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private db!: Knex;
  private log!: Logger;

  async start(app: AppContext): Promise<void> {
    this.db = app.db;
    // Every source query in flight listens for the stop: far more than the default 10.
    setMaxListeners(0, this.stopped.signal);
    this.log = app.log.child({ worker: this.name });
    const deps: ProcessingDeps = {
      store: app.store,
      sources: createSourceCatalog(app.config),
      clock: app.clock,
      sourceTimeoutMs: app.config.SOURCE_TIMEOUT_MS,
      policies: new PolicyVersions(app.store),
      log: this.log,
      stop: this.stopped.signal,
    };
    this.locks = new AdvisoryLocks(app.db);
    this.loop = this.run(app, deps);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.stopped.abort();
    await this.subscription?.stop();
    await this.loop;
    await this.locks?.close();
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
        failures++;
        this.log.error({ err: error }, 'report processing failed; retrying');
        await this.pause(Math.min(30_000, 200 * 2 ** failures));
      }
    }
  }

  /** Holding the lock: follow ReportRequested from the checkpoint until stopped. */
  private async follow(app: AppContext, deps: ProcessingDeps): Promise<void> {
    const slots = new Slots(app.config.REPORT_PROCESSING_CONCURRENCY);
    const progress = new OrderedProgress();
    let saved = await readCheckpoint(this.db);
    const persist = async () => {
      const safe = progress.safePosition;
      if (safe && comparePositions(safe, saved) > 0) {
        await saveCheckpoint(this.db, safe);
        saved = safe;
      }
    };
    const saver = setInterval(() => persist().catch((error) => this.log.warn({ err: error }, 'checkpoint not saved')), SAVE_EVERY_MS);
    let failure: unknown;
    try {
      this.subscription = app.store.subscribeToAll(
        async (events: RecordedEvent[], checkpoint: Position) => {
          for (const event of events) {
            // Stopping: leave the rest of the batch, and the checkpoint, to the next start.
            if (this.stopping) return;
            await slots.acquire();
            const done = progress.begin(event.position);
            const reportId = String(event.data.reportId);
            const work = this.processWithRetries(deps, reportId, event)
              .then(done, (error) => this.log.warn({ err: error, reportId }, 'report left for the next start'))
              .finally(() => {
                slots.release();
                this.inFlight.delete(work);
              });
            this.inFlight.add(work);
          }
          progress.mark(checkpoint);
        },
        {
          after: saved,
          filter: { eventTypes: [ReportEventTypes.requested] },
          maxCount: Math.max(100, app.config.REPORT_PROCESSING_CONCURRENCY * 2),
          onError: (error) => {
            failure = error;
          },
        },
      );
      await this.subscription.done;
      // Reports in flight record what they have and stop (their sources were told to): then save.
      await Promise.allSettled([...this.inFlight]);
      await persist();
    } finally {
      clearInterval(saver);
      this.subscription = undefined;
    }
    if (failure) throw failure;
  }

  /** A report that fails (database away, say) is retried; on stop it is left to the next start. */
  private async processWithRetries(deps: ProcessingDeps, reportId: string, requested: RecordedEvent): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        // A retry reads the stream: the first attempt may have recorded part of the report.
        return await processReport(deps, reportId, attempt === 1 ? requested : undefined);
      } catch (error) {
        if (this.stopping) throw error;
        this.log.warn({ err: error, reportId, attempt }, 'report processing attempt failed');
        await this.pause(Math.min(30_000, 100 * 2 ** attempt));
      }
    }
  }
}
