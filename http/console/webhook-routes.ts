import { WEBHOOK_OUTBOX_PROJECTION } from '../../projections/webhook/outbox-projection.ts';
import { WEBHOOK_SUBSCRIPTIONS_PROJECTION } from '../../projections/webhook/subscriptions-projection.ts';
import Type from 'typebox';
import { redeliver } from '../../application/webhook/operations.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { WebhookMessages } from '../../domain/webhook/messages.ts';
import { findDelivery, findSubscription, listDeliveries, listSubscriptions } from '../../projections/webhook/queries.ts';
import { HttpError } from '../errors.ts';
import { allows, Gates } from '../gates.ts';
import { ObjectIdSchema, type RouteSpec } from '../route.ts';
import { seeOther } from './html.ts';
import { consoleRoute, page } from './signed-in.ts';
import { deliveriesPage, subscriptionsPage } from './webhook-html.ts';

// Subscriptions and their deliveries: a caller's next request sees its own write to either.
const WEBHOOK_READS = [WEBHOOK_SUBSCRIPTIONS_PROJECTION, WEBHOOK_OUTBOX_PROJECTION];

/** The subscription families the user may see, as the API's webhook routes gate them; none is a 403. */
function families(principal: Principal): Array<'named' | 'legacy'> {
  const allowed = [...(allows(Gates.namedWebhooks, principal) ? (['named'] as const) : []), ...(allows(Gates.legacyWebhooks, principal) ? (['legacy'] as const) : [])];
  if (!allowed.length) throw new HttpError(403, Messages.forbidden);
  return allowed;
}

const Params = Type.Object({ id: ObjectIdSchema() });

export const webhookPageRoutes: RouteSpec[] = [
  consoleRoute({
    method: 'get',
    reads: WEBHOOK_READS,
    path: '/console/webhooks',
    summary: "The organization's webhook subscriptions, named and legacy as the user may see them (HTML)",
    errors: [403],
    async handle(input) {
      const rows = (await Promise.all(families(input.principal).map((family) => listSubscriptions(input.app.db, input.principal.organizationId, family)))).flat();
      return page(200, 'Webhooks', input, subscriptionsPage(rows));
    },
  }),
  consoleRoute({
    method: 'get',
    reads: WEBHOOK_READS,
    path: '/console/webhooks/:id',
    summary: "A subscription's delivery log (HTML): the 50 newest deliveries with every attempt; named deliveries can be sent again",
    params: Params,
    errors: [403, 404],
    async handle(input) {
      const { db } = input.app;
      const found = await Promise.all(families(input.principal).map((family) => findSubscription(db, input.principal.organizationId, family, input.params.id!)));
      const subscription = found.find(Boolean);
      if (!subscription) throw new DomainError('not_found', WebhookMessages.subscriptionNotFound);
      const deliveries = await listDeliveries(db, subscription.id, { skip: 0, take: 50 });
      const notice = input.ctx.query.reenviada === '1' ? 'Entrega reenviada: ela aparece com a nova tentativa em instantes.' : undefined;
      return page(200, 'Entregas do webhook', input, deliveriesPage(subscription, deliveries, input.csrf, notice));
    },
  }),
  consoleRoute({
    method: 'post',
    reads: WEBHOOK_READS,
    path: '/console/webhooks/entregas/:id/reenviar',
    summary: 'Send a named delivery again now (urlencoded `csrf`), same id and body',
    gate: Gates.namedWebhooks,
    params: Params,
    redirects: "to the subscription's delivery log",
    errors: [404],
    async handle(input) {
      await redeliver(input.app, input.principal, input.params.id!);
      const delivery = (await findDelivery(input.app.db, input.principal.organizationId, input.params.id!))!;
      return seeOther(`/console/webhooks/${delivery.subscription_id}?reenviada=1`);
    },
  }),
];
