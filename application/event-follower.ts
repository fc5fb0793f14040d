import type Logger from 'bunyan';
import { AdvisoryLocks, LockNamespace } from '../platform/database/advisory-lock.ts';
import { positionToString, type Position, type RecordedEvent, type Subscription } from '../platform/eventstore/port.ts';
import type { AppContext } from './context.ts';
import type { Worker } from './worker.ts';
import { WakeablePause } from './wakeable-pause.ts';
import { byStream, CompletionWatermark, KeyedLanes } from './follower-lanes.ts';
import { CheckpointSaver } from './checkpoint-saver.ts';

const ATTEMPTS = 5;

/** How a process manager reacts to one event; built once per run of the follower (per lock held). */
export type Reaction = (event: RecordedEvent) => Promise<void>;

/** Its row in projection_checkpoints; the prefix keeps it apart from projection names. */
export const processCheckpoint = (name: string) => `process:${name}`;

export interface FollowerOptions {
  /** Run events of different keys side by side, PROCESS_MANAGER_CONCURRENCY at most; otherwise one at a time in global order. */
  concurrent?: boolean;
  /** Events with one key run one after another in global order; different keys run side by side. Default: the stream. */
  keyOf?: (event: RecordedEvent) => string;
  /** How many keys at once when `concurrent`, for reactions that mostly wait (remote calls); default PROCESS_MANAGER_CONCURRENCY. */
  concurrency?: (config: AppContext['config']) => number;
}

/**
 * A process manager (projector role) reduced to what differs between them: the events it follows
 * and its reaction. It runs in one process at a time (advisory lock) and follows the events from
 * its checkpoint (`process:<name>` in projection_checkpoints) in global order, and stops as soon as
 * that lock is lost (platform/database/advisory-lock.ts). When `concurrent`,
 * events of different keys (streams by default) run side by side while each key's events keep their order; the checkpoint only moves past a position once every event before it has
 * finished (CompletionWatermark), so a crash replays what was in flight and nothing is skipped:
 * reactions must tolerate a replay. A reaction failing ATTEMPTS times is logged and skipped so that
 * one broken stream (a bug, a stream that cannot be read) does not stop the process for every
 * other aggregate; that one stays where it was.
 */
export class EventFollower implements Worker {
  readonly role = 'projector' as const;
  private stopping = false;
  private subscription: Subscription | undefined;
  private loop: Promise<void> | undefined;
  private locks: AdvisoryLocks | undefined;
  private readonly pauses = new WakeablePause();
  private signalStop!: () => void;
  private readonly stopped = new Promise<void>((resolve) => (this.signalStop = resolve));
  private log!: Logger;

  constructor(
    readonly name: string,
    private readonly eventTypes: readonly string[],
    private readonly reactionFor: (app: AppContext, log: Logger) => Reaction,
    private readonly options: FollowerOptions = {},
  ) {}

  async start(app: AppContext): Promise<void> {
    this.log = app.log.child({ worker: this.name });
    this.locks = new AdvisoryLocks(app.db);
    this.loop = this.run(app);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.signalStop();
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
    const lanes = new KeyedLanes(this.options.concurrent ? (this.options.concurrency?.(app.config) ?? app.config.PROCESS_MANAGER_CONCURRENCY) : 1);
    const watermark = new CompletionWatermark();
    const saver = new CheckpointSaver(app.db, checkpoint, this.log);
    const keyOf = this.options.keyOf ?? byStream;
    let failure: unknown;
    let lost = false;
    // The lock went with its session: another process may follow from here on. Stop at once and
    // store nothing more; the next holder replays what was in flight (reactions tolerate it).
    const unwatch = this.locks!.onLost(() => {
      lost = true;
      saver.discard();
      this.log.warn('process manager lock lost: stopped following');
      void this.subscription?.stop();
    });
    if (!this.locks!.holding) return unwatch();
    this.subscription = app.store.subscribeToAll(
      async (events, position) => {
        for (const event of events) {
          await lanes.whenSlotFree();
          if (this.stopping || lost) return;
          const mark = watermark.begin(event.position);
          lanes.run(keyOf(event), async () => {
            // Unfinished (stopping): the checkpoint stays before it and the next holder runs it.
            if (!(await this.reactWithRetries(react, event))) return;
            if (watermark.finish(mark)) saver.save(watermark.safe!);
          });
        }
        if (watermark.pass(position)) saver.save(watermark.safe!);
      },
      { after, filter: { eventTypes: this.eventTypes }, maxCount: 100, onError: (error) => (failure = error) },
    );
    // stop() may have run while this round took its lock or read its checkpoint: it found no
    // subscription to stop, so stop this one here, or stop() would wait for it forever.
    if (this.stopping) void this.subscription.stop();
    try {
      await this.subscription.done;
    } finally {
      unwatch();
      this.subscription = undefined;
      await lanes.drain();
      await saver.flush();
    }
    if (failure) throw failure;
  }

  /** A wait between attempts that stop() cuts short (several reactions may be waiting at once). */
  private untilStopping(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      void this.stopped.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** True once the event is handled (or skipped after ATTEMPTS failures); false when stopping cut it short. */
  private async reactWithRetries(react: Reaction, event: RecordedEvent): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      if (this.stopping) return false;
      try {
        await react(event);
        return true;
      } catch (error) {
        if (this.stopping) return false;
        if (attempt >= ATTEMPTS) {
          this.log.error({ err: error, type: event.type, streamName: event.streamName }, 'event skipped after repeated failures');
          return true;
        }
        await this.untilStopping(50 * 2 ** attempt);
      }
    }
  }
}
