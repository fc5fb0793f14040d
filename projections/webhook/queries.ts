import type { Knex } from 'knex';
import { countOf } from '../../platform/database/knex.ts';
import type { Family } from '../../domain/webhook/events.ts';
import type { SubscriptionRow } from './subscription-rows.ts';

export function listSubscriptions(db: Knex, organizationId: string, family: Family, id?: string): Promise<SubscriptionRow[]> {
  const query = db('webhook_subscriptions').where({ organization_id: organizationId, family }).orderBy('created_at', 'asc').orderBy('id', 'asc');
  if (id !== undefined) query.andWhere({ id });
  return query;
}

export async function findSubscription(db: Knex, organizationId: string, family: Family, id: string): Promise<SubscriptionRow | undefined> {
  return db('webhook_subscriptions').where({ organization_id: organizationId, family, id }).first();
}

export interface DeliveryRow {
  id: string;
  subscription_id: string;
  organization_id: string;
  event_id: string;
  event_name: string;
  family: Family;
  occurred_at: Date;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  attempts: number;
  next_attempt_at: Date;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  outcome: string;
  error: string | null;
}

export async function findDelivery(db: Knex, organizationId: string, id: string): Promise<DeliveryRow | undefined> {
  return db('webhook_deliveries').where({ organization_id: organizationId, id }).first();
}

/** A page of a subscription's deliveries, newest first, each with its attempts in order. */
export async function listDeliveries(
  db: Knex,
  subscriptionId: string,
  page: { status?: string; deliveryId?: string; skip: number; take: number },
): Promise<{ total: number; items: Array<DeliveryRow & { attemptLog: AttemptRow[] }> }> {
  const base = db('webhook_deliveries').where({ subscription_id: subscriptionId });
  if (page.status) base.andWhere({ status: page.status });
  if (page.deliveryId) base.andWhere({ id: page.deliveryId });
  const total = await countOf(base);
  const rows: DeliveryRow[] = await base.clone().orderBy('created_at', 'desc').orderBy('id', 'desc').offset(page.skip).limit(page.take);
  const attempts: AttemptRow[] = rows.length
    ? await db('webhook_delivery_attempts')
        .whereIn(
          'delivery_id',
          rows.map((r) => r.id),
        )
        .orderBy('id', 'asc')
    : [];
  return { total, items: rows.map((row) => ({ ...row, attemptLog: attempts.filter((a) => a.delivery_id === row.id) })) };
}
