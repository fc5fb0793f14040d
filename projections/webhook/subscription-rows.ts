import type { Knex } from 'knex';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { evolve, initialState, type WebhookState } from '../../domain/webhook/decider.ts';
import type { WebhookEvent } from '../../domain/webhook/events.ts';

export type SubscriptionTable = 'webhook_subscriptions' | 'webhook_outbox_targets';

export interface SubscriptionRow {
  id: string;
  organization_id: string;
  family: WebhookState['family'];
  legacy_type: WebhookState['legacyType'];
  url: string;
  /** The sealed apiKey (plain in rows written before apiKeys were sealed). */
  api_key: string | null;
  events: string[];
  description: string | null;
  sealed_secret: string | null;
  previous_sealed_secret: string | null;
  previous_secret_expires_at: Date | null;
  status: 'active' | 'disabled';
  disabled_reason: WebhookState['disabledReason'];
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
  /** Stream revision of the last event applied; null in rows written before the column. */
  version: number | null;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function rowToState(row: SubscriptionRow): WebhookState {
  return {
    status: row.status,
    subscriptionId: row.id,
    organizationId: row.organization_id,
    family: row.family,
    legacyType: row.legacy_type,
    url: row.url,
    sealedApiKey: row.api_key,
    // Only the events hold it; no read needs it.
    apiKeyHash: null,
    events: row.events,
    description: row.description,
    sealedSecret: row.sealed_secret,
    previousSealedSecret: row.previous_sealed_secret,
    previousSecretExpiresAt: iso(row.previous_secret_expires_at),
    disabledReason: row.disabled_reason,
    disabledAt: iso(row.disabled_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function stateToRow(state: WebhookState, version: bigint) {
  return {
    version: version.toString(),
    id: state.subscriptionId,
    organization_id: state.organizationId,
    family: state.family,
    legacy_type: state.legacyType,
    url: state.url,
    api_key: state.sealedApiKey,
    events: JSON.stringify(state.events),
    description: state.description,
    sealed_secret: state.sealedSecret,
    previous_sealed_secret: state.previousSealedSecret,
    previous_secret_expires_at: state.previousSecretExpiresAt,
    status: state.status,
    disabled_reason: state.disabledReason,
    disabled_at: state.disabledAt,
    created_at: state.createdAt,
    updated_at: state.updatedAt,
  };
}

/**
 * Fold one subscription event into a table through the aggregate's own evolve, so the read
 * tables can never disagree with the decider about what an event means. Idempotent: an event
 * the row already holds (its revision at or below the row's version) changes nothing, since
 * evolve itself is not (a secret rotation applied twice makes the new secret the previous one,
 * a disabling applied again after an enabling turns the subscription off).
 */
export async function applySubscriptionEvent(trx: Knex.Transaction, table: SubscriptionTable, event: RecordedEvent): Promise<WebhookState> {
  const id = String(event.data.subscriptionId);
  const row: SubscriptionRow | undefined = await trx(table).where({ id }).first();
  const state = row ? rowToState(row) : initialState();
  if (row?.version != null && event.revision <= BigInt(row.version)) return state;
  const next = evolve(state, { type: event.type, data: event.data } as unknown as WebhookEvent);
  if (next.status === 'deleted') await trx(table).where({ id }).delete();
  else if (next.status !== 'absent') await trx(table).insert(stateToRow(next, event.revision)).onConflict('id').merge();
  return next;
}
