import cron, { type ScheduledTask } from 'node-cron';
import { ConfigurationError } from '../config/index.ts';
import { AdvisoryLocks, LockNamespace } from '../platform/database/advisory-lock.ts';
import type { AppContext } from './context.ts';
import { WakeablePause } from './wakeable-pause.ts';
import type { Worker } from './worker.ts';

/** A cron expression, or a fixed pause between the end of a pass and the next (for periods under a minute). */
export type Schedule = string | { everyMs: number };

/** What a pass acted on: a count, or counts by name (each logged under its name). */
export type PassCounts = number | Record<string, number>;

export interface ScheduledPassOptions {
  /**
   * One scheduler at a time (the default): each pass takes the advisory lock named after the job.
   * False for a pass any number of processes may run at once (repeating it appends nothing).
   */
  exclusive?: boolean;
  /** The level of the line logged after a pass that acted on something (info by default). */
  level?: 'info' | 'warn';
}

/**
 * A scheduler-role job that runs `pass` on a schedule; `schedule` answering null leaves it off
 * (the feature is not configured). A tick that comes while the previous pass still runs is
 * skipped (quietly: with a frequent schedule a slow pass is normal, not worth a line). An
 * exclusive job takes the advisory lock named after it, runs, and releases it, so another
 * scheduler may take the next tick. A pass must be safe to repeat (a crash mid-pass repeats it).
 * Its counts are logged when one is not zero; a failure is logged and the next pass tries again.
 */
export class ScheduledPass implements Worker {
  readonly role = 'scheduler' as const;
  private task: ScheduledTask | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private busy = false;
  private stopping = false;
  private readonly pause = new WakeablePause();

  constructor(
    readonly name: string,
    private readonly schedule: (app: AppContext) => Schedule | null,
    private readonly pass: (app: AppContext) => Promise<PassCounts>,
    private readonly done: string,
    private readonly options: ScheduledPassOptions = {},
  ) {}

  async start(app: AppContext): Promise<void> {
    const schedule = this.schedule(app);
    if (schedule === null) return;
    if (typeof schedule === 'string' && !cron.validate(schedule)) {
      throw new ConfigurationError(`${this.name}: "${schedule}" is not a cron expression; fix: e.g. "* * * * *"`);
    }
    const log = app.log.child({ job: this.name });
    const tick = async () => {
      try {
        const counts = await this.lockedPass(app);
        const named = typeof counts === 'number' ? { count: counts } : counts;
        if (Object.values(named).some((n) => n > 0)) log[this.options.level ?? 'info'](named, this.done);
      } catch (error) {
        log.error({ err: error }, `${this.name} failed; the next pass tries again`);
      }
    };
    if (typeof schedule !== 'string') {
      this.running = (async () => {
        while (!this.stopping) {
          await tick();
          await this.pause.wait(schedule.everyMs);
        }
      })();
      return;
    }
    this.task = cron.schedule(
      schedule,
      () => {
        if (this.busy) return;
        this.busy = true;
        this.running = tick().finally(() => (this.busy = false));
      },
      { name: this.name },
    );
  }

  /** One pass, under the job's lock when the job is exclusive (0 when another scheduler holds it). */
  protected async lockedPass(app: AppContext): Promise<PassCounts> {
    if (this.options.exclusive === false) return this.pass(app);
    const locks = new AdvisoryLocks(app.db);
    try {
      if (!(await locks.tryLock(LockNamespace.processManager, this.name))) return 0;
      return await this.pass(app);
    } finally {
      await locks.close();
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.pause.wake();
    await this.task?.stop();
    await this.task?.destroy();
    await this.running;
  }
}
