import cron, { type ScheduledTask } from 'node-cron';
import { ConfigurationError } from '../../../config/index.ts';
import { AdvisoryLocks, LockNamespace } from '../../../platform/database/advisory-lock.ts';
import type { AppContext } from '../../context.ts';
import type { Worker } from '../../worker.ts';
import { expireCollection, loadCollection } from '../commands.ts';
import { isLive } from './messages.ts';
import { notify } from './process.ts';
import { advanceReminder, deadlinesPassed, dueReminderDay, remindersDue, unschedule } from './schedule.ts';

/** Collections looked at per run and job; the rest wait for the next run. */
const BATCH = 500;

/**
 * Reminders due at the app's clock: each recipient with an item still waiting on them gets the
 * reminder of the latest due day once (the key names the day, so a run repeated after a restart,
 * or by a second scheduler, queues nothing new). The collection is read from its stream first: a
 * canceled, completed or expired one gets nothing and leaves the schedule.
 */
export async function sendDueReminders(app: AppContext): Promise<number> {
  const now = app.clock.now();
  let queued = 0;
  for (const row of await remindersDue(app.db, now, BATCH)) {
    const state = await loadCollection(app, row.collection_id);
    if (!isLive(state) || !state.sentAt) {
      await unschedule(app.db, row.collection_id);
      continue;
    }
    const day = dueReminderDay(state.sentAt, state.reminderDays, now.getTime());
    if (day !== null) queued += await notify(app, state, state.recipients, 'COLLECTION_REMINDER', () => String(day));
    await advanceReminder(app.db, row, now);
  }
  return queued;
}

/**
 * Collections past their deadline: expireCollection decides (it expires only a live collection
 * with an item waiting on a recipient). One still open stays scheduled and is looked at again.
 */
export async function expireDue(app: AppContext): Promise<number> {
  let expired = 0;
  for (const row of await deadlinesPassed(app.db, app.clock.now(), BATCH)) {
    const { position } = await expireCollection(app, { organizationId: row.organization_id, collectionId: row.collection_id });
    if (position) expired++;
    if (!isLive(await loadCollection(app, row.collection_id))) await unschedule(app.db, row.collection_id);
  }
  return expired;
}

/**
 * The scheduler role's reminder and expiry runs (COLLECTION_SCHEDULE_CRON). Only the process
 * holding the advisory lock runs them, so two schedulers do not read the same rows at once;
 * another takes over when the holder's session ends.
 */
export class CollectionScheduleJob implements Worker {
  readonly name = 'collection-schedule';
  readonly role = 'scheduler' as const;
  private task: ScheduledTask | undefined;
  private locks: AdvisoryLocks | undefined;
  private busy = false;
  private running: Promise<unknown> = Promise.resolve();

  async start(app: AppContext): Promise<void> {
    const schedule = app.config.COLLECTION_SCHEDULE_CRON;
    if (!cron.validate(schedule)) throw new ConfigurationError(`COLLECTION_SCHEDULE_CRON "${schedule}" is not a cron expression; fix: e.g. "* * * * *"`);
    this.locks = new AdvisoryLocks(app.db);
    const log = app.log.child({ job: this.name });
    // Overlap is skipped here rather than by node-cron's noOverlap, which logs a warning for
    // every skipped tick: with a frequent schedule a slow run is normal, not worth a line.
    this.task = cron.schedule(
      schedule,
      () => {
        if (this.busy) return;
        this.busy = true;
        this.running = this.runOnce(app)
          .catch((error: unknown) => log.error({ err: error }, 'collection reminders and expiry failed; next run retries'))
          .finally(() => (this.busy = false));
      },
      { name: this.name },
    );
  }

  private async runOnce(app: AppContext): Promise<void> {
    // Answered from memory while held; asked again once the lock went with its session.
    if (!(await this.locks!.tryLock(LockNamespace.processManager, this.name))) return;
    const reminded = await sendDueReminders(app);
    const expired = await expireDue(app);
    if (reminded || expired) app.log.info({ job: this.name, reminded, expired }, 'collection reminders and expiry run');
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    await this.task?.destroy();
    await this.running;
    await this.locks?.close();
  }
}
