import type Logger from 'bunyan';
import { AdvisoryLocks, LockNamespace } from '../../../platform/database/advisory-lock.ts';
import type { Position, RecordedEvent, Subscription } from '../../../platform/eventstore/port.ts';
import type { AppContext } from '../../context.ts';
import type { Worker } from '../../worker.ts';
import { offlineAnalyser } from './offline.ts';
import { ANALYSIS_EVENT_TYPES, DocumentAnalysisProcess } from './process.ts';
import type { DocumentAnalyser } from './port.ts';

/** Its row in projection_checkpoints; the prefix keeps it apart from projection names. */
export const ANALYSIS_CHECKPOINT = 'process:registry-document-analysis';
const ATTEMPTS = 5;

/**
 * Runs the document analysis process manager (projector role) in one process at a time (advisory
 * lock): follows its events from the checkpoint in their global order and stores the checkpoint
 * after each batch, so a crash replays at most one batch, which the process tolerates.
 */
export class DocumentAnalysisWorker implements Worker {
  readonly name = 'registry-document-analysis';
  readonly role = 'projector' as const;
  private stopping = false;
  private subscription: Subscription | undefined;
  private loop: Promise<void> | undefined;
  private locks: AdvisoryLocks | undefined;
  private wake: (() => void) | undefined;
  private log!: Logger;

  constructor(private readonly analyser: DocumentAnalyser = offlineAnalyser) {}

  async start(app: AppContext): Promise<void> {
    this.log = app.log.child({ worker: this.name });
    this.locks = new AdvisoryLocks(app.db);
    this.loop = this.run(app);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.subscription?.stop();
    await this.loop;
    await this.locks?.close();
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async run(app: AppContext): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      try {
        if (!(await this.locks!.tryLock(LockNamespace.processManager, this.name))) {
          await this.pause(1000);
          continue;
        }
        await this.follow(app);
        failures = 0;
      } catch (error) {
        failures++;
        this.log.error({ err: error }, 'document analysis failed; retrying');
        await this.pause(Math.min(30_000, 200 * 2 ** failures));
      }
    }
  }

  private async follow(app: AppContext): Promise<void> {
    const process = new DocumentAnalysisProcess(app, this.analyser, this.log);
    await app.db('projection_checkpoints').insert({ name: ANALYSIS_CHECKPOINT }).onConflict('name').ignore();
    const row = await app.db('projection_checkpoints').where({ name: ANALYSIS_CHECKPOINT }).first();
    const after: Position = { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) };
    let failure: unknown;
    this.subscription = app.store.subscribeToAll(
      async (events, checkpoint) => {
        for (const event of events) {
          if (this.stopping) return;
          await this.handleWithRetries(process, event);
        }
        await app.db('projection_checkpoints')
          .where({ name: ANALYSIS_CHECKPOINT })
          .update({ commit_position: checkpoint.commit.toString(), prepare_position: checkpoint.prepare.toString(), updated_at: app.db.fn.now() });
      },
      { after, filter: { eventTypes: ANALYSIS_EVENT_TYPES }, maxCount: 100, onError: (error) => (failure = error) },
    );
    await this.subscription.done;
    this.subscription = undefined;
    if (failure) throw failure;
  }

  /** A document whose step keeps failing (a stream that cannot be read) must not hold back every other one. */
  private async handleWithRetries(process: DocumentAnalysisProcess, event: RecordedEvent): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await process.handle(event);
      } catch (error) {
        if (this.stopping) throw error;
        if (attempt >= ATTEMPTS) {
          this.log.error({ err: error, type: event.type, registryDocumentId: event.data.registryDocumentId }, 'document event skipped after repeated failures');
          return;
        }
        await this.pause(50 * 2 ** attempt);
      }
    }
  }
}
