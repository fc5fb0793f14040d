import { WEBHOOK_OUTBOX_PROJECTION } from '../../projections/webhook/outbox-projection.ts';
import { WEBHOOK_SUBSCRIPTIONS_PROJECTION } from '../../projections/webhook/subscriptions-projection.ts';
import type { Knex } from 'knex';
import Type from 'typebox';
import { ping, redeliver, replay } from '../../application/webhook/operations.ts';
import { createNamedSubscription, deleteSubscription, disableSubscription, enableSubscription, rotateSecret, updateSubscription } from '../../application/webhook/commands.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { eventCatalog } from '../../domain/webhook/catalog.ts';
import { WebhookMessages } from '../../domain/webhook/messages.ts';
import { findDelivery, findSubscription, listDeliveries, listSubscriptions } from '../../projections/webhook/queries.ts';
import { Gates } from '../gates.ts';
import { route } from '../route.ts';
import { Catalog, Delivery, DeliveriesQuery, DeliveryPage, DeliveryParams, IdParams, NamedCreateBody, NamedSubscription, NamedSubscriptionWithSecret, NamedUpdateBody, ReplayBody } from './schemas.ts';
import { deliveryPageView, deliveryView, namedView } from './views.ts';

// Subscriptions and their deliveries: a caller's next request sees its own write to either.
const WEBHOOK_READS = [WEBHOOK_SUBSCRIPTIONS_PROJECTION, WEBHOOK_OUTBOX_PROJECTION];

const BASE = '/v1/webhook/subscriptions';
const gate = Gates.namedWebhooks;
const Queued = Type.Object({ deliveryId: Type.String() });

async function visibleSubscription(db: Knex, organizationId: string, id: string) {
  const row = await findSubscription(db, organizationId, 'named', id);
  if (!row) throw new DomainError('not_found', WebhookMessages.subscriptionNotFound);
  return row;
}

/**
 * Subscriptions to named events, signed deliveries and their operations. The spec shows none of
 * these shapes (Events B): they are ours, under /v1 like the catalog, behind Authentication 7's
 * gate (can-use-registry-api or can-manage-settings; 404 without it).
 */
export const namedRoutes = [
  route({
    method: 'get',
    path: '/v1/webhook/events',
    summary: 'The catalog of named events',
    description: 'Groups Relatórios e crédito, Documento, Cadastro, Solicitação, Mensagens; the flat list starts with the report and credit events.',
    gate: Gates.webhookCatalog,
    responses: { 200: Catalog },
    handle: async () => eventCatalog(),
  }),
  route({
    method: 'post',
    reads: WEBHOOK_READS,
    path: BASE,
    summary: 'Subscribe a url to named events; the reply carries the signing secret, shown this once',
    gate,
    body: NamedCreateBody,
    responses: { 201: NamedSubscriptionWithSecret },
    async handle({ app, principal, body }) {
      const { state, secret } = await createNamedSubscription(app, principal, body);
      return { status: 201, body: { ...namedView(state), secret } };
    },
  }),
  route({
    method: 'get',
    reads: WEBHOOK_READS,
    path: BASE,
    summary: "The organization's named subscriptions",
    gate,
    responses: { 200: Type.Array(NamedSubscription) },
    handle: async ({ app, principal }) => (await listSubscriptions(app.db, principal.organizationId, 'named')).map(namedView),
  }),
  route({
    method: 'get',
    reads: WEBHOOK_READS,
    path: `${BASE}/:id`,
    summary: 'One named subscription',
    gate,
    params: IdParams,
    responses: { 200: NamedSubscription },
    handle: async ({ app, principal, params }) => namedView(await visibleSubscription(app.db, principal.organizationId, params.id)),
  }),
  route({
    method: 'patch',
    reads: WEBHOOK_READS,
    path: `${BASE}/:id`,
    summary: 'Change url, events or description',
    gate,
    params: IdParams,
    body: NamedUpdateBody,
    responses: { 200: NamedSubscription },
    handle: async ({ app, principal, params, body }) => namedView(await updateSubscription(app, principal, params.id, body)),
  }),
  route({
    method: 'delete',
    reads: WEBHOOK_READS,
    path: `${BASE}/:id`,
    summary: 'Remove a named subscription; its deliveries stop at once',
    gate,
    params: IdParams,
    responses: { 200: NamedSubscription },
    handle: async ({ app, principal, params }) => namedView(await deleteSubscription(app, principal, params.id, 'named')),
  }),
  route({
    method: 'post',
    reads: WEBHOOK_READS,
    path: `${BASE}/:id/disable`,
    summary: 'Turn deliveries off (waiting deliveries are canceled)',
    gate,
    params: IdParams,
    responses: { 200: NamedSubscription },
    handle: async ({ app, principal, params }) => namedView(await disableSubscription(app, principal, params.id)),
  }),
  route({
    method: 'post',
    reads: WEBHOOK_READS,
    path: `${BASE}/:id/enable`,
    summary: 'Turn deliveries back on, with a fresh count of consecutive failures',
    gate,
    params: IdParams,
    responses: { 200: NamedSubscription },
    handle: async ({ app, principal, params }) => namedView(await enableSubscription(app, principal, params.id)),
  }),
  route({
    method: 'post',
    reads: WEBHOOK_READS,
    path: `${BASE}/:id/rotate-secret`,
    summary: 'Issue a new signing secret (shown this once); the old one keeps signing X-Service-Signature-Previous during the overlap',
    gate,
    params: IdParams,
    responses: { 200: NamedSubscriptionWithSecret },
    async handle({ app, principal, params }) {
      const { state, secret } = await rotateSecret(app, principal, params.id);
      return { ...namedView(state), secret };
    },
  }),
  route({
    method: 'post',
    reads: WEBHOOK_READS,
    path: `${BASE}/:id/ping`,
    summary: 'Send the ping event now, whatever the event list (the test button)',
    gate,
    params: IdParams,
    responses: { 202: Queued },
    handle: async ({ app, principal, params }) => ({ status: 202, body: await ping(app, principal, params.id) }),
  }),
  route({
    method: 'get',
    reads: WEBHOOK_READS,
    path: `${BASE}/:id/deliveries`,
    summary: 'Delivery log: newest first, each with its attempts (time, status code, duration, error)',
    gate,
    params: IdParams,
    query: DeliveriesQuery,
    responses: { 200: DeliveryPage },
    async handle({ app, principal, params, query }) {
      await visibleSubscription(app.db, principal.organizationId, params.id);
      return deliveryPageView(await listDeliveries(app.db, params.id, query));
    },
  }),
  route({
    method: 'post',
    reads: WEBHOOK_READS,
    path: `${BASE}/:id/replay`,
    summary: 'Send again every event since a time that the subscription covers, read back from the event store',
    gate,
    params: IdParams,
    body: ReplayBody,
    responses: { 202: Type.Object({ deliveries: Type.Integer(), truncated: Type.Boolean(), resumeSince: Type.Union([Type.String(), Type.Null()]) }) },
    handle: async ({ app, principal, params, body }) => ({ status: 202, body: await replay(app, principal, params.id, new Date(body.since)) }),
  }),
  route({
    method: 'get',
    reads: WEBHOOK_READS,
    path: '/v1/webhook/deliveries/:deliveryId',
    summary: 'One delivery with its attempts',
    gate,
    params: DeliveryParams,
    responses: { 200: Delivery },
    async handle({ app, principal, params }) {
      const row = await findDelivery(app.db, principal.organizationId, params.deliveryId);
      if (!row || row.family !== 'named') throw new DomainError('not_found', WebhookMessages.deliveryNotFound);
      const page = await listDeliveries(app.db, row.subscription_id, { skip: 0, take: 1, deliveryId: row.id });
      return deliveryView(page.items[0]!);
    },
  }),
  route({
    method: 'post',
    reads: WEBHOOK_READS,
    path: '/v1/webhook/deliveries/:deliveryId/redeliver',
    summary: 'Send one delivery again now, same id and body, with a new retry schedule',
    gate,
    params: DeliveryParams,
    responses: { 202: Queued },
    handle: async ({ app, principal, params }) => ({ status: 202, body: await redeliver(app, principal, params.deliveryId) }),
  }),
];
