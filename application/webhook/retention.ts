import type { AppContext } from '../context.ts';
import { ScheduledPass } from '../scheduled-pass.ts';

/** Rows deleted per statement: short transactions that never hold the log's pages for long. */
const BATCH = 1000;

/**
 * Delete the attempts of the delivery log older than the retention, a batch at a time. Delivery
 * rows stay: they are what keeps an outbox rebuild from sending an event twice, and they keep
 * each delivery's status, attempt count and last result.
 */
export async function pruneAttempts(app: Pick<AppContext, 'db'>, retentionDays: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = await app.db.raw(
      `delete from webhook_delivery_attempts where ctid = any(array(
         select ctid from webhook_delivery_attempts where started_at < now() - ? * interval '1 day' limit ?))`,
      [retentionDays, BATCH],
    );
    deleted += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < BATCH) return deleted;
  }
}

/**
 * The scheduler role's job for the webhook module. Several scheduler processes may run it at
 * once: a delete of what is already gone does nothing, so no lock is needed.
 */
export class WebhookRetentionJob extends ScheduledPass {
  constructor() {
    super(
      'webhook-attempt-retention',
      (app) => app.config.WEBHOOK_ATTEMPT_RETENTION_CRON,
      async (app) => ({ deleted: await pruneAttempts(app, app.config.WEBHOOK_ATTEMPT_RETENTION_DAYS) }),
      'webhook attempts pruned',
      { exclusive: false },
    );
  }
}
