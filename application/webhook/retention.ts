import cron, { type ScheduledTask } from 'node-cron';
import { ConfigurationError } from '../../config/index.ts';
import type { AppContext } from '../context.ts';
import type { Worker } from '../worker.ts';

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
export class WebhookRetentionJob implements Worker {
  readonly name = 'webhook-attempt-retention';
  readonly role = 'scheduler' as const;
  private task: ScheduledTask | undefined;
  private running: Promise<unknown> = Promise.resolve();

  async start(app: AppContext): Promise<void> {
    const { WEBHOOK_ATTEMPT_RETENTION_CRON: schedule, WEBHOOK_ATTEMPT_RETENTION_DAYS: days } = app.config;
    if (!cron.validate(schedule)) throw new ConfigurationError(`WEBHOOK_ATTEMPT_RETENTION_CRON "${schedule}" is not a cron expression; fix: e.g. "23 3 * * *"`);
    this.task = cron.schedule(
      schedule,
      () => {
        this.running = pruneAttempts(app, days)
          .then((deleted) => app.log.info({ job: this.name, deleted, retentionDays: days }, 'webhook attempts pruned'))
          .catch((error) => app.log.error({ err: error, job: this.name }, 'webhook attempt pruning failed; the next run tries again'));
        return this.running;
      },
      { name: this.name, noOverlap: true },
    );
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    await this.task?.destroy();
    await this.running;
  }
}
