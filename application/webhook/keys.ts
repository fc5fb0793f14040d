import { createHmac } from 'node:crypto';
import { keyringFor, type Config, type Keyring } from '../../config/index.ts';
import { SecretBox } from '../../platform/secrets/secret-box.ts';

/** The salt of the signing secrets' AES key, unchanged since before key ids, so old values still open. */
const SIGNING_SECRETS = 'webhook-signing-secrets';
const API_KEYS = 'webhook-api-keys';

const boxes = new Map<string, WeakMap<Keyring, SecretBox>>();

function boxFor(config: Config, purpose: string): SecretBox {
  const keyring = keyringFor(config, 'sealing');
  let byRing = boxes.get(purpose);
  if (!byRing) boxes.set(purpose, (byRing = new WeakMap()));
  let box = byRing.get(keyring);
  if (!box) byRing.set(keyring, (box = new SecretBox(keyring, purpose)));
  return box;
}

/** Every process that signs deliveries needs the SEALING_KEYS that sealed the subscription's secret. */
export function secretBoxFor(config: Config): SecretBox {
  return boxFor(config, SIGNING_SECRETS);
}

/** Opened values kept per box: a burst sends thousands of deliveries with a handful of secrets. */
const OPENED_KEPT = 1024;
const opened = new WeakMap<SecretBox, Map<string, string>>();

function openKept(box: SecretBox, sealed: string, associatedData: string): string {
  let values = opened.get(box);
  if (!values) opened.set(box, (values = new Map()));
  const key = `${associatedData}\u0000${sealed}`;
  let value = values.get(key);
  if (value === undefined) {
    value = box.open(sealed, associatedData);
    values.set(key, value);
    if (values.size > OPENED_KEPT) values.delete(values.keys().next().value!);
  }
  return value;
}

/** A subscription's signing secret, to sign a delivery with. */
export function openSigningSecret(config: Config, subscriptionId: string, sealed: string): string {
  return openKept(secretBoxFor(config), sealed, subscriptionId);
}

/**
 * A legacy apiKey as events keep it. It is sent as a header on every delivery, so a hash alone
 * cannot serve: the value is sealed for sending, and an HMAC with the pepper lets it be compared
 * (is this the key the receiver expects?) without opening it.
 */
export function protectApiKey(config: Config, subscriptionId: string, apiKey: string | null): { sealedApiKey: string | null; apiKeyHash: string | null } {
  if (!apiKey) return { sealedApiKey: null, apiKeyHash: null };
  return { sealedApiKey: boxFor(config, API_KEYS).seal(apiKey, subscriptionId), apiKeyHash: apiKeyHash(config, apiKey) };
}

export function apiKeyHash(config: Config, apiKey: string): string {
  return `hmac-sha256:${createHmac('sha256', keyringFor(config, 'pepper').primary.secret).update(apiKey).digest('hex')}`;
}

/**
 * The header value. Rows the webhook projections wrote before apiKeys were sealed still hold the
 * plain value until those projections are rebuilt; a sealed value is recognized by its exact form.
 */
export function openApiKey(config: Config, subscriptionId: string, stored: string): string {
  return SecretBox.isSealed(stored) ? openKept(boxFor(config, API_KEYS), stored, subscriptionId) : stored;
}

/** WebhookSubscriptionCreated events stored with a plain `apiKey` read as if sealed when written. */
export function webhookUpcasters(config: Config) {
  return {
    WebhookSubscriptionCreated(data: Record<string, unknown>): Record<string, unknown> {
      if (!('apiKey' in data)) return data;
      const { apiKey, ...rest } = data;
      return { ...rest, ...protectApiKey(config, String(data.subscriptionId), (apiKey as string | null) ?? null) };
    },
  };
}
