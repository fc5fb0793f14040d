import type { ReportFacts } from '../../domain/report/public-events.ts';
import { comparePositions, type EventStore } from '../../platform/eventstore/port.ts';
import { readCheckpoints } from '../../platform/projections/checkpoints.ts';
import { WEBHOOK_OUTBOX_PROJECTION } from '../../projections/webhook/outbox-projection.ts';
import type { TestApp } from './app.ts';
import { eventually } from './wait.ts';

/** The ReportFacts the reports module puts in its events' data, with defaults for what `facts` leaves out. */
export function reportFacts(facts: Partial<ReportFacts> & { organizationId: string } & Record<string, unknown>, reportId: string): ReportFacts {
  return {
    reportId,
    reportCreatedAt: new Date().toISOString(),
    document: '52998224725',
    type: 'cpf',
    status: 'APPROVED',
    policyStatus: 'APPROVED',
    score: 812,
    externalId: 'ext-1',
    policyId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
    policyVersion: 1,
    ...facts,
  };
}

/** Append a report event straight to the store: enough to drive webhooks without running a report. */
export function appendReportEvent(app: TestApp, type: string, facts: Partial<ReportFacts> & { organizationId: string } & Record<string, unknown>): Promise<ReportFacts> {
  return appendReportEventTo(app.app.store, type, facts, facts.reportId ?? app.app.ids.objectId());
}

/** The same through any store over the service's database (benches append from their own process). */
export async function appendReportEventTo(store: EventStore, type: string, facts: Partial<ReportFacts> & { organizationId: string } & Record<string, unknown>, reportId: string): Promise<ReportFacts> {
  const data = reportFacts(facts, reportId);
  await store.appendToStream(`report-${data.reportId}`, [{ type, data: { ...data } }], { expectedRevision: 'any' });
  return data;
}

export interface DeliveryState {
  id: string;
  status: string;
  attempts: number;
  event_name: string;
  last_error: string | null;
}

export function deliveriesOf(app: TestApp, subscriptionId: string): Promise<DeliveryState[]> {
  return app.app.db('webhook_deliveries').where({ subscription_id: subscriptionId }).orderBy('created_at').select('id', 'status', 'attempts', 'event_name', 'last_error');
}

export function attemptsOf(app: TestApp, deliveryId: string): Promise<Array<{ attempt: number; outcome: string; status_code: number | null; error: string | null; started_at: Date }>> {
  return app.app.db('webhook_delivery_attempts').where({ delivery_id: deliveryId }).orderBy('id');
}

/**
 * Waits until the outbox filler has read the store up to its present head: every delivery row it
 * will ever make for what was appended so far exists, and the cancels of deleted or disabled
 * subscriptions are done. What must not be queued can then be checked at once, with no pause.
 */
export async function outboxCaughtUp(app: TestApp): Promise<void> {
  const head = await app.app.store.headPosition();
  await eventually(
    async () => {
      const at = (await readCheckpoints(app.app.db, [WEBHOOK_OUTBOX_PROJECTION])).get(WEBHOOK_OUTBOX_PROJECTION)?.position;
      return !!at && comparePositions(at, head) >= 0;
    },
    { what: 'the webhook outbox to reach the head of the store' },
  );
}

/**
 * Waits until the outbox has made every row for what was appended so far and none of the
 * organization's deliveries is still pending: each has been sent (or given up, or canceled), so
 * what a receiver holds then is all it will get. The positive signal that replaces a pause
 * "long enough for an extra request to show up".
 */
export async function deliveriesSettled(app: TestApp, organizationId: string): Promise<void> {
  await outboxCaughtUp(app);
  await eventually(async () => !(await app.app.db('webhook_deliveries').where({ organization_id: organizationId, status: 'pending' }).first()), {
    what: `no pending webhook delivery of ${organizationId}`,
  });
}
