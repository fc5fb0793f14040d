import { fold } from '../../domain/shared/decider.ts';
import { reportDecider } from '../../domain/report/decider.ts';
import { reportStream } from '../../domain/report/events.ts';
import { toDomainEvents } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { objectStoreFor } from '../object-store.ts';
import { ScheduledPass } from '../scheduled-pass.ts';

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
    const accepted = acceptedKeys(await app.store.readStream(reportStream(reportId)));
    const keys = slots.filter((slot) => slot.report_id === reportId).map((slot) => slot.key);
    const unused = keys.filter((key) => accepted[key] === undefined);
    await store.delete(unused);
    deleted += unused.length;
    await app.db('financial_upload_slots').whereIn('key', keys).delete();
  }
  return { slots: slots.length, deleted };
}

/** The object keys of the financial statements these reports accepted (their streams say which). */
export async function statementKeysOfReports(app: Pick<AppContext, 'store'>, reportIds: readonly string[]): Promise<string[]> {
  const keys: string[] = [];
  for (const reportId of reportIds) keys.push(...Object.keys(acceptedKeys(await app.store.readStream(reportStream(reportId)))));
  return keys;
}

const acceptedKeys = (events: Awaited<ReturnType<AppContext['store']['readStream']>>) => fold(reportDecider, toDomainEvents(events)).financialKeys ?? {};

/** The scheduler role's sweep of upload slots (FINANCIAL_UPLOAD_SWEEP_CRON), one scheduler at a time. */
export const uploadSlotSweepJob = () =>
  new ScheduledPass(
    'financial-upload-sweep',
    (app) => app.config.FINANCIAL_UPLOAD_SWEEP_CRON,
    async (app) => (await sweepUploadSlots(app)).slots,
    'financial upload slots swept',
  );
