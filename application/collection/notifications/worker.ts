import type Logger from 'bunyan';
import { AdvisoryLocks, LockNamespace } from '../../../platform/database/advisory-lock.ts';
import type { Position, RecordedEvent, Subscription } from '../../../platform/eventstore/port.ts';
import type { AppContext } from '../../context.ts';
import type { Worker } from '../../worker.ts';
import { NOTIFICATION_EVENT_TYPES, NotificationProcess } from './process.ts';

/** Its row in projection_checkpoints; the prefix keeps it apart from projection names. */
export const NOTIFICATION_CHECKPOINT = 'process:collection-notifications';
const ATTEMPTS = 5;

/**
 * The collection notification process manager (projector role): follows its events from its
 * checkpoint in global order and stores the checkpoint after each batch, so a restart replays at
 * most one batch (every reaction tolerates that). One process runs it at a time (advisory lock).
 */
export class CollectionNotificationWorker implements Worker {
  readonly name = 'collection-notifications';
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
        this.log.error({ err: error }, 'collection notification process failed; retrying');
        await this.pause(Math.min(30_000, 200 * 2 ** failures));
      }
    }
  }

  private async follow(app: AppContext): Promise<void> {
    const process = new NotificationProcess(app, this.log);
    const checkpoints = () => app.db('projection_checkpoints').where({ name: NOTIFICATION_CHECKPOINT });
    await app.db('projection_checkpoints').insert({ name: NOTIFICATION_CHECKPOINT }).onConflict('name').ignore();
    const row = await checkpoints().first();
    const after: Position = { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) };
    let failure: unknown;
    this.subscription = app.store.subscribeToAll(
      async (events, checkpoint) => {
        for (const event of events) {
          if (this.stopping) return;
          await this.handleWithRetries(process, event);
        }
        await checkpoints().update({ commit_position: checkpoint.commit.toString(), prepare_position: checkpoint.prepare.toString(), updated_at: app.db.fn.now() });
      },
      { after, filter: { eventTypes: NOTIFICATION_EVENT_TYPES }, maxCount: 100, onError: (error) => (failure = error) },
    );
    await this.subscription.done;
    this.subscription = undefined;
    if (failure) throw failure;
  }

  /** A reaction that keeps failing is logged and skipped after ATTEMPTS, so it cannot stop every other collection's messages. */
  private async handleWithRetries(process: NotificationProcess, event: RecordedEvent): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await process.handle(event);
      } catch (error) {
        if (this.stopping) throw error;
        if (attempt >= ATTEMPTS) {
          this.log.error({ err: error, type: event.type, stream: event.streamName }, 'collection notification skipped after repeated failures');
          return;
        }
        await this.pause(50 * 2 ** attempt);
      }
    }
  }
}
