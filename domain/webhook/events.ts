import type { LegacyType } from './catalog.ts';

/** Stored type names of the webhook subscription aggregate (stream `webhook-<id>`). Never rename. */
export const WebhookEventTypes = {
  created: 'WebhookSubscriptionCreated',
  updated: 'WebhookSubscriptionUpdated',
  disabled: 'WebhookSubscriptionDisabled',
  enabled: 'WebhookSubscriptionEnabled',
  secretRotated: 'WebhookSecretRotated',
  deleted: 'WebhookSubscriptionDeleted',
} as const;

export const WEBHOOK_EVENT_TYPES: readonly string[] = Object.values(WebhookEventTypes);

export type Family = 'legacy' | 'named';
export type DisableReason = 'manual' | 'consecutive_failures';

interface Base {
  subscriptionId: string;
  organizationId: string;
}

export interface SubscriptionCreated extends Base {
  family: Family;
  /** legacy family only */
  legacyType: LegacyType | null;
  url: string;
  /**
   * legacy family only: the value of header api-key, sealed by the application (events before
   * sealing held it plain as `apiKey`; the store upcasts them on read).
   */
  sealedApiKey: string | null;
  /** legacy family only: HMAC of the api key, to compare it without opening it. */
  apiKeyHash: string | null;
  /** named family only */
  events: string[];
  description: string | null;
  /** named family only: the signing secret sealed by the application (never the raw secret). */
  sealedSecret: string | null;
  createdBy: string;
  createdAt: string;
}

export interface SubscriptionUpdated extends Base {
  url?: string;
  events?: string[];
  description?: string | null;
  updatedBy: string;
  updatedAt: string;
}

export interface SubscriptionDisabled extends Base {
  reason: DisableReason;
  /** When reason is consecutive_failures: how many in a row. */
  consecutiveFailures: number | null;
  disabledBy: string | null;
  disabledAt: string;
}

export interface SubscriptionEnabled extends Base {
  enabledBy: string;
  enabledAt: string;
}

export interface SecretRotated extends Base {
  sealedSecret: string;
  /** The previous secret still signs (in a second header) until then. */
  previousSecretExpiresAt: string;
  rotatedBy: string;
  rotatedAt: string;
}

export interface SubscriptionDeleted extends Base {
  deletedBy: string;
  deletedAt: string;
}

export type WebhookEvent =
  | { type: typeof WebhookEventTypes.created; data: SubscriptionCreated }
  | { type: typeof WebhookEventTypes.updated; data: SubscriptionUpdated }
  | { type: typeof WebhookEventTypes.disabled; data: SubscriptionDisabled }
  | { type: typeof WebhookEventTypes.enabled; data: SubscriptionEnabled }
  | { type: typeof WebhookEventTypes.secretRotated; data: SecretRotated }
  | { type: typeof WebhookEventTypes.deleted; data: SubscriptionDeleted };
