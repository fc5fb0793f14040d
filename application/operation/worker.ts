import type Logger from 'bunyan';
import { ExecutionEventTypes } from '../../domain/operation/events.ts';
import { ProposalEventTypes } from '../../domain/proposal/events.ts';
import { ReportEventTypes } from '../../domain/report/public-events.ts';
import { AdvisoryLocks, LockNamespace } from '../../platform/database/advisory-lock.ts';
import { positionToString, type Position, type Subscription } from '../../platform/eventstore/port.ts';
import type { AppContext } from '../context.ts';
import type { Worker } from '../worker.ts';
import { ExecutionProcess } from './process.ts';

/** Its row in projection_checkpoints; the prefix keeps it apart from projection names. */
export const EXECUTION_CHECKPOINT = 'process:operation-executions';
const ATTEMPTS = 5;

/** The events executions wait on: their own, their reports' decisions, their customers' choices and lapsed offers. */
const EVENT_TYPES = [...Object.values(ExecutionEventTypes), ReportEventTypes.decided, 'ReportProcessingFailed', ProposalEventTypes.offerChosen, ProposalEventTypes.offerExpired];

/**
 * The execution process manager (projector role): follows the events above from its checkpoint,
 * one at a time in their global order, and saves the checkpoint after each batch, so after a
 * crash or a restart it replays at most one batch, which its reactions tolerate. One process
 * runs it at a time (advisory lock).
 */
export class ExecutionProcessWorker implements Worker {
  readonly name = 'operation-executions';
  readonly role = 'projector' as const;
  private stopping = false;
  private subscription: Subscription | undefined;
  private loop: Promise<void> | undefined;
  private locks: AdvisoryLocks | undefined;
  private wake: (() => void) | undefined;
  private log!: Logger;

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
        this.log.error({ err: error }, 'execution process manager failed; retrying');
        await this.pause(Math.min(30_000, 200 * 2 ** failures));
      }
    }
  }

  private async follow(app: AppContext): Promise<void> {
    const process = new ExecutionProcess(app, this.log);
    await app.db('projection_checkpoints').insert({ name: EXECUTION_CHECKPOINT }).onConflict('name').ignore();
    const row = await app.db('projection_checkpoints').where({ name: EXECUTION_CHECKPOINT }).first();
    const after: Position = { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) };
    this.log.info({ checkpoint: positionToString(after) }, 'following executions');
    let failure: unknown;
    this.subscription = app.store.subscribeToAll(
      async (events, checkpoint) => {
        for (const event of events) {
          if (this.stopping) return;
          await this.handleWithRetries(process, event);
        }
        await app.db('projection_checkpoints')
          .where({ name: EXECUTION_CHECKPOINT })
          .update({ commit_position: checkpoint.commit.toString(), prepare_position: checkpoint.prepare.toString(), updated_at: app.db.fn.now() });
      },
      { after, filter: { eventTypes: EVENT_TYPES }, maxCount: 100, onError: (error) => (failure = error) },
    );
    await this.subscription.done;
    this.subscription = undefined;
    if (failure) throw failure;
  }

  /**
   * A reaction that keeps failing (a bug, a stream that cannot be read) must not stop every other
   * execution: after ATTEMPTS it is logged and skipped; that execution stays where it was.
   */
  private async handleWithRetries(process: ExecutionProcess, event: Parameters<ExecutionProcess['handle']>[0]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await process.handle(event);
      } catch (error) {
        if (this.stopping) throw error;
        if (attempt >= ATTEMPTS) {
          this.log.error({ err: error, type: event.type, data: event.data }, 'execution event skipped after repeated failures');
          return;
        }
        await this.pause(50 * 2 ** attempt);
      }
    }
  }
}
