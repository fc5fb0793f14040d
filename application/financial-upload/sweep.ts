import cron, { type ScheduledTask } from 'node-cron';
import { ConfigurationError } from '../../config/index.ts';
import { fold } from '../../domain/shared/decider.ts';
import { reportDecider } from '../../domain/report/decider.ts';
import { reportStream } from '../../domain/report/events.ts';
import { toDomainEvents } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { objectStoreFor } from '../object-store.ts';
import type { Worker } from '../worker.ts';

/** How long after its URL expired a slot still counts: a client may call complete late (a day). */
export const SLOT_GRACE_MS = 24 * 3_600_000;

/**
 * Forget upload slots a day past their URL's expiry. The report's stream says which keys a batch
 * accepted (the only truth: a flag written after the event could be lost in a crash): those
 * files stay, the others (uploaded and never completed, or never uploaded) are deleted from the
 * store. Deleting is idempotent, so schedulers in several processes may run it at once.
 */
export async function sweepUploadSlots(app: Pick<AppContext, 'db' | 'store' | 'clock' | 'config'>, limit = 500): Promise<{ slots: number; deleted: number }> {
  const before = new Date(app.clock.now().getTime() - SLOT_GRACE_MS);
  const slots: Array<{ key: string; report_id: string }> = await app.db('financial_upload_slots').where('expires_at', '<', before).orderBy('expires_at').limit(limit).select('key', 'report_id');
  const store = objectStoreFor(app.config);
  let deleted = 0;
  for (const reportId of new Set(slots.map((slot) => slot.report_id))) {
    const accepted = fold(reportDecider, toDomainEvents(await app.store.readStream(reportStream(reportId)))).financialKeys ?? {};
    const keys = slots.filter((slot) => slot.report_id === reportId).map((slot) => slot.key);
    const unused = keys.filter((key) => accepted[key] === undefined);
    await store.delete(unused);
    deleted += unused.length;
    await app.db('financial_upload_slots').whereIn('key', keys).delete();
  }
  return { slots: slots.length, deleted };
}

/** The scheduler role's sweep of upload slots (FINANCIAL_UPLOAD_SWEEP_CRON). */
export class UploadSlotSweepJob implements Worker {
  readonly name = 'financial-upload-sweep';
  readonly role = 'scheduler' as const;
  private task: ScheduledTask | undefined;
  private running: Promise<unknown> = Promise.resolve();

  async start(app: AppContext): Promise<void> {
    const schedule = app.config.FINANCIAL_UPLOAD_SWEEP_CRON;
    if (!cron.validate(schedule)) throw new ConfigurationError(`FINANCIAL_UPLOAD_SWEEP_CRON "${schedule}" is not a cron expression; fix: e.g. "41 * * * *"`);
    this.task = cron.schedule(
      schedule,
      () => {
        this.running = sweepUploadSlots(app).then(
          (result) => app.log.info({ job: this.name, ...result }, 'financial upload slots swept'),
          (error: unknown) => app.log.warn({ err: error, job: this.name }, 'financial upload sweep failed; the next run tries again'),
        );
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
