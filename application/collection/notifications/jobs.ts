import type { AppContext } from '../../context.ts';
import { ScheduledPass } from '../../scheduled-pass.ts';
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
 * The scheduler role's reminder and expiry runs (COLLECTION_SCHEDULE_CRON). One scheduler at a
 * time runs them, under the job's advisory lock, so two schedulers do not read the same rows at
 * once; another may take the next tick.
 */
export class CollectionScheduleJob extends ScheduledPass {
  constructor() {
    super(
      'collection-schedule',
      (app) => app.config.COLLECTION_SCHEDULE_CRON,
      async (app) => ({ reminded: await sendDueReminders(app), expired: await expireDue(app) }),
      'collection reminders and expiry run',
    );
  }
}
