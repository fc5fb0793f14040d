import { WEBHOOK_OUTBOX_PROJECTION } from '../../projections/webhook/outbox-projection.ts';
import { WEBHOOK_SUBSCRIPTIONS_PROJECTION } from '../../projections/webhook/subscriptions-projection.ts';
import Type from 'typebox';
import { OBJECT_ID } from '../../platform/ids.ts';
import { createLegacySubscription, deleteSubscription } from '../../application/webhook/commands.ts';
import { findSubscription, listDeliveries, listSubscriptions } from '../../projections/webhook/queries.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { WebhookMessages } from '../../domain/webhook/messages.ts';
import { Gates } from '../gates.ts';
import { route, type RouteTable } from '../route.ts';
import { namedRoutes } from './named-routes.ts';
import { DeliveriesQuery, DeliveryPage, IdParams, LegacyCreateBody, LegacyFindQuery, LegacySubscription } from './schemas.ts';
import { deliveryPageView, legacyView } from './views.ts';

// Subscriptions and their deliveries: a caller's next request sees its own write to either.
const WEBHOOK_READS = [WEBHOOK_SUBSCRIPTIONS_PROJECTION, WEBHOOK_OUTBOX_PROJECTION];

/** Legacy typed subscriptions, exactly as the contract shows them (unversioned paths). */
const legacyRoutes = [
  route({
    method: 'post',
    reads: WEBHOOK_READS,
    path: '/webhook',
    summary: 'Subscribe a url to one legacy webhook type',
    description:
      'A test POST with {"message": ...} is sent to the url first; anything but 2xx (an internal address included) gives 400 `URL de webhook inválida.` (exactly) with the rule that refused it in `detail`, ' +
      'as do a bad type and a missing url. Deliveries carry {organizationId, webhookType, data} and the api-key header when set.',
    gate: Gates.legacyWebhooks,
    body: LegacyCreateBody,
    responses: { 200: LegacySubscription },
    async handle({ app, principal, body }) {
      const { state, apiKey } = await createLegacySubscription(app, principal, body);
      return legacyView(state, apiKey);
    },
  }),
  route({
    method: 'get',
    reads: WEBHOOK_READS,
    path: '/webhook/findBy',
    summary: "The organization's legacy subscriptions, or the one with webhookId (always an array)",
    gate: Gates.legacyWebhooks,
    query: LegacyFindQuery,
    responses: { 200: Type.Array(LegacySubscription) },
    async handle({ app, principal, query }) {
      const id = query.webhookId;
      // A malformed id matches nothing: the contract answers with an array either way.
      if (id !== undefined && !OBJECT_ID.test(id)) return [];
      return (await listSubscriptions(app.db, principal.organizationId, 'legacy', id)).map((row) => legacyView(row));
    },
  }),
  route({
    method: 'get',
    reads: WEBHOOK_READS,
    path: '/webhook/:id/deliveries',
    summary: "A legacy subscription's delivery log (ours): newest first, each with its attempts",
    description:
      "Not in the contract: the named subscriptions' log (GET /v1/webhook/subscriptions/{id}/deliveries) for a legacy one, same query " +
      '(status, skip, take) and shape: status, attempts, nextAttemptAt while a retry is due, lastStatusCode, lastError, and attemptLog ' +
      '(time, statusCode, durationMs, outcome, error). 404 for an unknown or foreign id.',
    gate: Gates.legacyWebhooks,
    params: IdParams,
    query: DeliveriesQuery,
    responses: { 200: DeliveryPage },
    async handle({ app, principal, params, query }) {
      if (!(await findSubscription(app.db, principal.organizationId, 'legacy', params.id))) {
        throw new DomainError('not_found', WebhookMessages.subscriptionNotFound);
      }
      return deliveryPageView(await listDeliveries(app.db, params.id, query));
    },
  }),
  route({
    method: 'delete',
    reads: WEBHOOK_READS,
    path: '/webhook/:id',
    summary: 'Remove a legacy subscription; its deliveries stop at once',
    gate: Gates.legacyWebhooks,
    params: IdParams,
    responses: { 200: LegacySubscription },
    handle: async ({ app, principal, params }) => legacyView(await deleteSubscription(app, principal, params.id, 'legacy')),
  }),
];

export const webhookRoutes: RouteTable = {
  module: 'webhook',
  description: 'Legacy typed subscriptions, named-event subscriptions with signed deliveries, their delivery log; payloads under `webhooks`',
  routes: [...legacyRoutes, ...namedRoutes],
};
