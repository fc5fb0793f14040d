import type { ReportFacts } from '../../domain/report/public-events.ts';
import type { TestApp } from './app.ts';

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
export async function appendReportEvent(
  app: TestApp,
  type: string,
  facts: Partial<ReportFacts> & { organizationId: string } & Record<string, unknown>,
): Promise<ReportFacts> {
  const data = reportFacts(facts, facts.reportId ?? app.app.ids.objectId());
  await app.app.store.appendToStream(`report-${data.reportId}`, [{ type, data: { ...data } }], { expectedRevision: 'any' });
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
