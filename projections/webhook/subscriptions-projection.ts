import { WEBHOOK_EVENT_TYPES } from '../../domain/webhook/events.ts';
import type { Projection } from '../../platform/projections/projection.ts';
import { applySubscriptionEvent } from './subscription-rows.ts';

export const WEBHOOK_SUBSCRIPTIONS_PROJECTION = 'webhook-subscriptions';

/** The subscriptions the routes list and read. */
export const webhookSubscriptionsProjection: Projection = {
  name: WEBHOOK_SUBSCRIPTIONS_PROJECTION,
  eventTypes: WEBHOOK_EVENT_TYPES,
  tables: ['webhook_subscriptions'],
  async handle(events, trx) {
    for (const event of events) await applySubscriptionEvent(trx, 'webhook_subscriptions', event);
  },
};
