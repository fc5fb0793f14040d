import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { Principal } from '../../domain/identity/access.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { PING_EVENT } from '../../domain/webhook/catalog.ts';
import { WebhookMessages } from '../../domain/webhook/messages.ts';
import { ROUTED_STORED_TYPES, namedBody, routeEvent, targetWants } from '../../domain/webhook/routing.ts';
import { insertKeptBodies, keptBodies } from '../../projections/webhook/bodies.ts';
import { deliveriesFor, deliveryIdOf, withoutBody, type DeliveryInsert, type SharedBodyDelivery } from '../../projections/webhook/outbox-projection.ts';
import { findDelivery, findSubscription } from '../../projections/webhook/queries.ts';
import { rowToState, type SubscriptionRow } from '../../projections/webhook/subscription-rows.ts';
import type { AppContext } from '../context.ts';
import { comparePositions } from '../../platform/eventstore/port.ts';
import { dispatchSignal } from './signals.ts';

/** A replay stops after this many deliveries and says where to continue. */
export const MAX_REPLAY_DELIVERIES = 10_000;
/**
 * Nor does it read more than this many of the organization's events (a subscription to a rare
 * event would otherwise read the tenant's whole log in one request); it says where to go on.
 */
export const MAX_REPLAY_EVENTS_READ = 50_000;
const PAGE = 1000;

async function namedSubscription(app: AppContext, principal: Principal, id: string, mustBeActive: boolean): Promise<SubscriptionRow> {
  const row = await findSubscription(app.db, principal.organizationId, 'named', id);
  if (!row) throw new DomainError('not_found', WebhookMessages.subscriptionNotFound);
  if (mustBeActive && row.status !== 'active') throw new DomainError('conflict', WebhookMessages.subscriptionDisabled);
  return row;
}

/** A due-now delivery again, keeping its id and body; the retry schedule starts over. */
function requeue(db: Knex) {
  return {
    status: 'pending',
    schedule_start: db.ref('webhook_deliveries.attempts'),
    next_attempt_at: db.fn.now(),
    claim_token: null,
    completed_at: null,
  };
}

/** The test button: sent whatever the event list says, to disabled subscriptions too. */
export async function ping(app: AppContext, principal: Principal, subscriptionId: string) {
  const subscription = await namedSubscription(app, principal, subscriptionId, false);
  const eventId = `ping:${app.ids.uuid()}`;
  const id = deliveryIdOf(subscription.id, eventId);
  const occurredAt = app.clock.now().toISOString();
  const row: DeliveryInsert = {
    id,
    subscription_id: subscription.id,
    organization_id: subscription.organization_id,
    event_id: eventId,
    event_name: PING_EVENT,
    family: 'named',
    body: namedBody({ id, event: PING_EVENT, occurredAt, organizationId: subscription.organization_id, data: { subscriptionId: subscription.id, message: WebhookMessages.testMessage } }),
    occurred_at: occurredAt,
  };
  await app.db('webhook_deliveries').insert(row);
  dispatchSignal.notify();
  return { deliveryId: id };
}

export async function redeliver(app: AppContext, principal: Principal, deliveryId: string) {
  const delivery = await findDelivery(app.db, principal.organizationId, deliveryId);
  if (!delivery || delivery.family !== 'named') throw new DomainError('not_found', WebhookMessages.deliveryNotFound);
  await namedSubscription(app, principal, delivery.subscription_id, delivery.event_name !== PING_EVENT);
  await app.db('webhook_deliveries').where({ id: delivery.id }).update(requeue(app.db));
  dispatchSignal.notify();
  return { deliveryId: delivery.id };
}

/**
 * Every stored event since `since` that the subscription's current event list covers, read
 * again from the event store, up to the head as it was when the replay began. Deliveries that
 * exist are queued again with their id (receivers deduplicate by it); missing ones are created.
 * A page may hold no wanted event at all (the filter thins a page after reading it): the scan
 * goes on from the page's checkpoint until it passes the head, and only the delivery limit
 * truncates it.
 */
export async function replay(app: AppContext, principal: Principal, subscriptionId: string, since: Date) {
  const subscription = await namedSubscription(app, principal, subscriptionId, true);
  const target = rowToState(subscription);
  const head = await app.store.headPosition();
  // Only from `since` on: a replay of the last hour does not read years of log first.
  let after = await app.store.positionBefore(since);
  let queued = 0;
  let resumeSince: string | null = null;
  let pastHead = false;
  let read = 0;
  let lastRead: Date | undefined;
  while (!resumeSince && !pastHead && comparePositions(after, head) < 0) {
    if (read >= MAX_REPLAY_EVENTS_READ) {
      // The next call starts at the last event read (at worst a few deliveries queued twice, with their ids).
      resumeSince = lastRead!.toISOString();
      break;
    }
    // The organization's own events only, through their index: another tenant's are never read
    // (nor their personal fields opened), and a page of PAGE is at most PAGE of this tenant's.
    const page = await app.store.readAll({ after, filter: { eventTypes: ROUTED_STORED_TYPES, organizationId: subscription.organization_id }, maxCount: PAGE });
    read += page.events.length;
    lastRead = page.events.at(-1)?.createdAt ?? lastRead;
    const rows: SharedBodyDelivery[] = [];
    for (const event of page.events) {
      pastHead = comparePositions(event.position, head) > 0;
      if (pastHead) break;
      if (event.createdAt < since) continue;
      const routed = routeEvent(event.type, event.data);
      if (!routed || !targetWants(target, routed)) continue;
      if (queued + rows.length >= MAX_REPLAY_DELIVERIES) {
        resumeSince = event.createdAt.toISOString();
        break;
      }
      rows.push(deliveriesFor(event, routed, subscription.organization_id)(subscription));
    }
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      await app.db.transaction(async (trx) => {
        await trx.raw(insertKeptBodies(), [keptBodies(chunk)]);
        await trx('webhook_deliveries').insert(chunk.map(withoutBody)).onConflict('id').merge(requeue(trx));
      });
    }
    queued += rows.length;
    // Still behind a transaction that has not committed yet (the head is past it): let it end.
    if (comparePositions(page.checkpoint, after) === 0) await sleep(20);
    after = page.checkpoint;
  }
  dispatchSignal.notify();
  return { deliveries: queued, truncated: resumeSince !== null, resumeSince };
}
