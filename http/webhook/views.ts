import type { WebhookState } from '../../domain/webhook/decider.ts';
import type { AttemptRow, DeliveryRow } from '../../projections/webhook/queries.ts';
import { rowToState, type SubscriptionRow } from '../../projections/webhook/subscription-rows.ts';

const iso = (date: Date | null) => (date ? date.toISOString() : null);
const stateOf = (from: WebhookState | SubscriptionRow) => ('subscriptionId' in from ? from : rowToState(from));

/** A stored apiKey is never shown again: reads say one is set, as the named secret is shown once. */
const HIDDEN_API_KEY = '********';

/** `apiKey`: the value the caller just sent, in the reply to its creation. */
export function legacyView(from: WebhookState | SubscriptionRow, apiKey?: string | null) {
  const s = stateOf(from);
  const shown = apiKey !== undefined ? apiKey : s.sealedApiKey ? HIDDEN_API_KEY : null;
  return { id: s.subscriptionId, type: s.legacyType, url: s.url, apiKey: shown, organizationId: s.organizationId, createdAt: s.createdAt, updatedAt: s.updatedAt };
}

/** Never the secret, sealed or not: it is shown once, by the reply that issues it. */
export function namedView(from: WebhookState | SubscriptionRow) {
  const s = stateOf(from);
  const overlap = s.previousSecretExpiresAt && Date.parse(s.previousSecretExpiresAt) > Date.now() ? s.previousSecretExpiresAt : null;
  return {
    id: s.subscriptionId,
    url: s.url,
    events: s.events,
    description: s.description,
    status: s.status === 'active' ? 'ACTIVE' : s.status === 'deleted' ? 'DELETED' : 'DISABLED',
    disabledReason: s.disabledReason ? s.disabledReason.toUpperCase() : null,
    disabledAt: s.disabledAt,
    previousSecretExpiresAt: overlap,
    organizationId: s.organizationId,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

export function deliveryView(row: DeliveryRow & { attemptLog: AttemptRow[] }) {
  return {
    id: row.id,
    subscriptionId: row.subscription_id,
    event: row.event_name,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    occurredAt: row.occurred_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    completedAt: iso(row.completed_at),
    attemptLog: row.attemptLog.map((a) => ({
      attempt: a.attempt,
      at: a.started_at.toISOString(),
      statusCode: a.status_code,
      durationMs: a.duration_ms,
      outcome: a.outcome,
      error: a.error,
    })),
  };
}

/** A page of the delivery log, the same for both families. */
export function deliveryPageView(page: { total: number; items: Array<DeliveryRow & { attemptLog: AttemptRow[] }> }) {
  return { total: page.total, items: page.items.map(deliveryView) };
}
