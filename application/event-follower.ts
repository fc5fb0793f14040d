import type Logger from 'bunyan';
import { AdvisoryLocks, LockNamespace } from '../platform/database/advisory-lock.ts';
import { positionToString, type Position, type RecordedEvent, type Subscription } from '../platform/eventstore/port.ts';
import type { AppContext } from './context.ts';
import type { Worker } from './worker.ts';
import { WakeablePause } from './wakeable-pause.ts';

const ATTEMPTS = 5;

/** How a process manager reacts to one event; built once per run of the follower (per lock held). */
export type Reaction = (event: RecordedEvent) => Promise<void>;

/** Its row in projection_checkpoints; the prefix keeps it apart from projection names. */
export const processCheckpoint = (name: string) => `process:${name}`;

/**
 * A process manager (projector role) reduced to what differs between them: the events it follows
 * and its reaction. It runs in one process at a time (advisory lock), follows the events from its
 * checkpoint (`process:<name>` in projection_checkpoints) in global order and saves the checkpoint
 * after each batch, so a crash replays at most one batch: reactions must tolerate a replay. A
 * reaction failing ATTEMPTS times is logged and skipped so that one broken stream (a bug, a stream
 * that cannot be read) does not stop the process for every other aggregate; that one stays where it was.
 */
export class EventFollower implements Worker {
  readonly role = 'projector' as const;
  private stopping = false;
  private subscription: Subscription | undefined;
  private loop: Promise<void> | undefined;
  private locks: AdvisoryLocks | undefined;
  private readonly pauses = new WakeablePause();
  private log!: Logger;

  constructor(
    readonly name: string,
    private readonly eventTypes: readonly string[],
    private readonly reactionFor: (app: AppContext, log: Logger) => Reaction,
  ) {}

  async start(app: AppContext): Promise<void> {
    this.log = app.log.child({ worker: this.name });
    this.locks = new AdvisoryLocks(app.db);
    this.loop = this.run(app);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.pauses.wake();
    await this.subscription?.stop();
    await this.loop;
    await this.locks?.close();
  }

  private async run(app: AppContext): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      try {
        if (!(await this.locks!.tryLock(LockNamespace.processManager, this.name))) {
          await this.pauses.wait(1000);
          continue;
        }
        await this.follow(app);
        failures = 0;
      } catch (error) {
        failures++;
        this.log.error({ err: error }, 'process manager failed; retrying');
        await this.pauses.wait(Math.min(30_000, 200 * 2 ** failures));
      }
    }
  }

  private async follow(app: AppContext): Promise<void> {
    const checkpoint = processCheckpoint(this.name);
    const react = this.reactionFor(app, this.log);
    await app.db('projection_checkpoints').insert({ name: checkpoint }).onConflict('name').ignore();
    const row = await app.db('projection_checkpoints').where({ name: checkpoint }).first();
    const after: Position = { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) };
    this.log.info({ checkpoint: positionToString(after) }, 'following');
    let failure: unknown;
    this.subscription = app.store.subscribeToAll(
      async (events, position) => {
        for (const event of events) {
          if (this.stopping) return;
          await this.reactWithRetries(react, event);
        }
        await app.db('projection_checkpoints')
          .where({ name: checkpoint })
          .update({ commit_position: position.commit.toString(), prepare_position: position.prepare.toString(), updated_at: app.db.fn.now() });
      },
      { after, filter: { eventTypes: this.eventTypes }, maxCount: 100, onError: (error) => (failure = error) },
    );
    await this.subscription.done;
    this.subscription = undefined;
    if (failure) throw failure;
  }

  private async reactWithRetries(react: Reaction, event: RecordedEvent): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await react(event);
      } catch (error) {
        if (this.stopping) throw error;
        if (attempt >= ATTEMPTS) {
          this.log.error({ err: error, type: event.type, streamName: event.streamName }, 'event skipped after repeated failures');
          return;
        }
        await this.pauses.wait(50 * 2 ** attempt);
      }
    }
  }
}
