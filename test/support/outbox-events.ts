import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { ClaimedDelivery, DeliveryHandoff } from '../../projections/webhook/handoff.ts';
import { reportFacts } from './webhook.ts';

/** Events as the outbox's handler gets them, without a store, for tests that drive it in a transaction. */
let position = 0n;

export const hex = () => randomUUID().replace(/-/g, '').slice(0, 24);

export function recorded(streamName: string, type: string, data: Record<string, unknown>): RecordedEvent {
  position++;
  return { id: randomUUID(), streamName, type, data, metadata: {}, revision: 0n, position: { commit: position, prepare: position }, createdAt: new Date() };
}

/** A named subscription to report.status.changed, as its creation event, and a report event it wants. */
export function subscriptionAndEvent() {
  const organizationId = hex();
  const subscriptionId = hex();
  const created = recorded(`webhook-${subscriptionId}`, 'WebhookSubscriptionCreated', {
    subscriptionId,
    organizationId,
    family: 'named',
    legacyType: null,
    url: 'https://hooks.example.com/in',
    sealedApiKey: null,
    apiKeyHash: null,
    events: ['report.status.changed'],
    description: null,
    sealedSecret: 'v2.k1.sealed',
    createdBy: hex(),
    createdAt: new Date().toISOString(),
  });
  const reportId = hex();
  const decided = recorded(`report-${reportId}`, 'ReportDecided', { ...reportFacts({ organizationId }, reportId) });
  return { organizationId, subscriptionId, created, decided };
}

/** The subscription turned off by hand: the second event of its stream. */
export function disabledEvent(subscriptionId: string, organizationId: string): RecordedEvent {
  const disabled = recorded(`webhook-${subscriptionId}`, 'WebhookSubscriptionDisabled', {
    subscriptionId,
    organizationId,
    reason: 'manual',
    consecutiveFailures: null,
    disabledBy: hex(),
    disabledAt: new Date().toISOString(),
  });
  disabled.revision = 1n;
  return disabled;
}

/** A dispatcher stand-in that records what it is given; `accept` says whether it takes rows. */
export function recordingHandoff(accept: boolean) {
  const taken: ClaimedDelivery[] = [];
  const released: ClaimedDelivery[] = [];
  const changed: string[] = [];
  const queued = { count: 0 };
  const handoff: DeliveryHandoff = {
    reserve: () => (accept ? 60_000 : null),
    take: (rows) => void taken.push(...rows),
    release: (rows) => void released.push(...rows),
    changed: (subscriptionIds) => void changed.push(...subscriptionIds),
    queued: () => void queued.count++,
  };
  return { handoff, taken, released, changed, queued };
}

export const settled = () => new Promise((resolve) => setImmediate(resolve));
