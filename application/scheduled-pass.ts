import cron, { type ScheduledTask } from 'node-cron';
import { ConfigurationError } from '../config/index.ts';
import { AdvisoryLocks, LockNamespace } from '../platform/database/advisory-lock.ts';
import type { AppContext } from './context.ts';
import type { Worker } from './worker.ts';

/**
 * A scheduler-role job that runs `pass` on a cron schedule, in one process at a time: each tick
 * takes the advisory lock named after the job, runs, and releases it, so another scheduler may
 * take the next tick. A pass must be safe to repeat (a crash mid-pass repeats it). Its result
 * (how many things it acted on) is logged when not zero.
 */
export class ScheduledPass implements Worker {
  readonly role = 'scheduler' as const;
  private task: ScheduledTask | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    readonly name: string,
    private readonly schedule: (app: AppContext) => string,
    private readonly pass: (app: AppContext) => Promise<number>,
    private readonly done: string,
  ) {}

  async start(app: AppContext): Promise<void> {
    const schedule = this.schedule(app);
    if (!cron.validate(schedule)) throw new ConfigurationError(`${this.name}: "${schedule}" is not a cron expression; fix: e.g. "* * * * *"`);
    const log = app.log.child({ job: this.name });
    this.task = cron.schedule(
      schedule,
      () => {
        this.running = this.lockedPass(app)
          .then((count) => count > 0 && log.info({ count }, this.done))
          .catch((error: unknown) => log.error({ err: error }, `${this.name} failed; the next pass tries again`));
        return this.running;
      },
      { name: this.name, noOverlap: true },
    );
  }

  protected async lockedPass(app: AppContext): Promise<number> {
    const locks = new AdvisoryLocks(app.db);
    try {
      if (!(await locks.tryLock(LockNamespace.processManager, this.name))) return 0;
      return await this.pass(app);
    } finally {
      await locks.close();
    }
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    await this.task?.destroy();
    await this.running;
  }
}
