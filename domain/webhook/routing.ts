import type { ReportEvent } from '../report/events.ts';
import { ReportEventTypes } from '../report/public-events.ts';
import { ExecutionEventTypes } from '../operation/events.ts';
import { COLLECTION_ACTIONS, collectionWebhookData, type CollectionEventData, type CollectionEventType } from '../collection/events.ts';
import { optInWebhookData } from '../collection/kinds/consent.ts';
import { messageFailedWebhookData, messageFailedWebhookName } from '../messaging/webhook.ts';
import { LEGACY_TYPE_INFO, legacyTypeOf, type LegacyType } from './catalog.ts';
import { REGISTRY_WEBHOOK_ROUTES } from '../registry/webhooks.ts';
import { FINANCIAL_WEBHOOK_ROUTES } from '../financial/webhook.ts';
import { COMMITTEE_WEBHOOK_ROUTES } from '../committee/webhook.ts';

type EventData = Record<string, unknown>;

/**
 * How a stored event becomes a webhook: its public name (a function when one stored type carries
 * several names, as a collection trail will) and the data sent (the event's own data unless said).
 */
export interface StoredEventRoute {
  publicName: string | ((data: EventData) => string | null);
  data?: (data: EventData) => EventData;
  /**
   * A legacy type the event also stands for, with the data legacy subscribers get: one stored
   * event, one delivery per subscription, whichever family it belongs to (a consent accepted is
   * collection.consent.accepted to named subscribers and the opt-in flow, OPTIN, to legacy ones).
   */
  legacy?: { type: LegacyType; data: (data: EventData) => EventData };
}

const collectionData = (d: EventData) => collectionWebhookData(d as unknown as CollectionEventData);

/**
 * The one table from stored event types to webhooks. A module that starts producing a webhook
 * event adds its line here; nothing else changes. Every trail action of a collection with a public
 * name is routed from the collection's table of actions.
 */
export const STORED_EVENT_ROUTES: Readonly<Record<string, StoredEventRoute>> = {
  [ReportEventTypes.sectionUpdated]: { publicName: 'report.section.updated' },
  [ReportEventTypes.sourcesFinished]: { publicName: 'report.finished' },
  [ReportEventTypes.decided]: { publicName: 'report.status.changed' },
  [ReportEventTypes.creditPolicyEvaluated]: { publicName: 'credit-policy.evaluated' },
  [ReportEventTypes.exported]: { publicName: 'report.exported' },
  [ReportEventTypes.exportFailed]: { publicName: 'report.exported' },
  // Processing gave up: the report's status became FAILED, which is a status change to whoever
  // follows statuses; not report.finished, whose subscribers expect every source to have answered.
  ['ReportProcessingFailed' satisfies ReportEvent['type']]: { publicName: 'report.status.changed' },
  ...Object.fromEntries(COLLECTION_ACTIONS.filter((a) => a.publicName).map((a) => [a.type, { publicName: a.publicName as string, data: collectionData }])),
  // Consents are the opt-in flow: the legacy OPTIN type (optin.updated) follows their acceptances and revocations.
  ['ConsentAccepted' satisfies CollectionEventType]: {
    publicName: 'collection.consent.accepted',
    data: collectionData,
    legacy: { type: 'OPTIN', data: (d) => optInWebhookData(d as unknown as Parameters<typeof optInWebhookData>[0], 'ACCEPTED') },
  },
  ['ConsentRevoked' satisfies CollectionEventType]: {
    publicName: 'collection.consent.revoked',
    data: collectionData,
    legacy: { type: 'OPTIN', data: (d) => optInWebhookData(d as unknown as Parameters<typeof optInWebhookData>[0], 'REVOKED') },
  },
  ...REGISTRY_WEBHOOK_ROUTES,
  ...FINANCIAL_WEBHOOK_ROUTES,
  ...COMMITTEE_WEBHOOK_ROUTES,
  MessageFailed: { publicName: messageFailedWebhookName, data: messageFailedWebhookData },
  // A message no channel could send did not arrive either: the same webhook, status NOT_SENT.
  MessageNotSent: { publicName: messageFailedWebhookName, data: messageFailedWebhookData },
  [ExecutionEventTypes.finished]: {
    publicName: 'operation.updated',
    data: (d) => ({ operationId: d.operationId, operationResultId: d.operationResultId, document: d.document, status: d.status, proposalId: d.proposalId, closing: d.closing }),
  },
};

export const ROUTED_STORED_TYPES: readonly string[] = Object.keys(STORED_EVENT_ROUTES);

export interface RoutedEvent {
  publicName: string;
  legacyType: LegacyType | undefined;
  data: EventData;
  /** What legacy subscribers get when it is not `data` (an event standing for a legacy type of its own). */
  legacyData?: EventData;
}

export function routeEvent(type: string, data: EventData): RoutedEvent | null {
  const route = STORED_EVENT_ROUTES[type];
  if (!route) return null;
  const publicName = typeof route.publicName === 'function' ? route.publicName(data) : route.publicName;
  if (!publicName) return null;
  const routed = { publicName, legacyType: legacyTypeOf(publicName), data: route.data ? route.data(data) : data };
  return route.legacy ? { ...routed, legacyType: route.legacy.type, legacyData: route.legacy.data(data) } : routed;
}

/** What a subscription looks like to the outbox. */
export interface SubscriptionTarget {
  family: 'legacy' | 'named';
  legacyType: LegacyType | null;
  events: readonly string[];
  createdAt: string;
}

export function targetWants(target: SubscriptionTarget, event: RoutedEvent): boolean {
  if (target.family === 'named') return target.events.includes(event.publicName);
  if (!event.legacyType || target.legacyType !== event.legacyType) return false;
  if (!LEGACY_TYPE_INFO[event.legacyType].onlyNewReports) return true;
  // ISO 8601 UTC strings of the same shape order like the instants they name.
  const reportCreatedAt = event.data.reportCreatedAt;
  return typeof reportCreatedAt === 'string' && Date.parse(reportCreatedAt) >= Date.parse(target.createdAt);
}

type NamedEnvelope = { id: string; event: string; occurredAt: string; organizationId: string; data: EventData };

/** The named envelope's JSON without its id: all that the subscriptions of one event share. */
export function namedBodyTemplate(envelope: Omit<NamedEnvelope, 'id'>): string {
  return JSON.stringify({ event: envelope.event, occurredAt: envelope.occurredAt, organizationId: envelope.organizationId, data: envelope.data });
}

/**
 * One delivery's named body from the template: byte for byte what serializing the whole envelope
 * gives (id first, no spaces). The database splices stored templates the same way (bodies.ts).
 */
export function fillNamedBody(template: string, id: string): string {
  return `{"id":${JSON.stringify(id)},${template.slice(1)}`;
}

/** Bodies are serialized once, when the delivery is created, so every attempt sends the same bytes. */
export function namedBody({ id, ...rest }: NamedEnvelope): string {
  return fillNamedBody(namedBodyTemplate(rest), id);
}

export function legacyBody(envelope: { organizationId: string; webhookType: LegacyType; data: EventData }): string {
  return JSON.stringify({ organizationId: envelope.organizationId, webhookType: envelope.webhookType, data: envelope.data });
}
