import type { Principal } from '../../domain/identity/access.ts';
import { isLegacyType } from '../../domain/webhook/catalog.ts';
import { webhookDecider, webhookStream, type WebhookCommand, type WebhookState } from '../../domain/webhook/decider.ts';
import { Refusals, WebhookMessages } from '../../domain/webhook/messages.ts';
import { checkWebhookUrl } from '../../domain/webhook/url.ts';
import { isIP } from 'node:net';
import { refusalOf } from './address-policy.ts';
import { WEBHOOK_OUTBOX_PROJECTION } from '../../projections/webhook/outbox-projection.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { rememberWrite } from '../read-your-writes.ts';
import { resetFailures } from './delivery-store.ts';
import { protectApiKey, secretBoxFor } from './keys.ts';
import { safePost } from './safe-http.ts';
import { generateSigningSecret } from './signing.ts';

type Issued = { organizationId: string; by: string | null; at: string };
type CommandWithoutIssuer = WebhookCommand extends infer C ? (C extends unknown ? Omit<C, keyof Issued> : never) : never;

/**
 * Run a command on one subscription; the reply is built from its state and the caller's next read
 * waits for the write (read-your-writes.ts). Commands that change how deliveries go out (delete,
 * disable, rotate) wait for the outbox, whose copy is what the dispatcher serves: that is a
 * promise of the reply (no attempt starts under the old state after it), not a read.
 */
async function run(app: AppContext, principal: Principal, subscriptionId: string, command: CommandWithoutIssuer, reachesDispatcher = false): Promise<WebhookState> {
  const issued: Issued = { organizationId: principal.organizationId, by: principal.userId, at: app.clock.now().toISOString() };
  const result = await handleCommand(app.store, webhookStream(subscriptionId), webhookDecider, { ...command, ...issued } as WebhookCommand);
  if (reachesDispatcher) await app.readYourWrites([WEBHOOK_OUTBOX_PROJECTION], result.position);
  rememberWrite(app, principal, result.position);
  return result.state;
}

/**
 * POST /webhook: before saving, POST a test message through the same safe client deliveries
 * use; anything but a 2xx (an internal address included) refuses the registration, saying why.
 */
export async function createLegacySubscription(app: AppContext, principal: Principal, input: { type?: unknown; url?: unknown; apiKey?: string | null }) {
  if (typeof input.url !== 'string') throw Refusals.missingUrl();
  const checked = checkWebhookUrl(input.url.trim());
  if ('problem' in checked) throw Refusals.url(checked.problem);
  if (!isLegacyType(input.type)) throw Refusals.legacyType();
  const { url } = checked;
  const apiKey = input.apiKey || null;
  const test = await safePost({
    url,
    body: JSON.stringify({ message: WebhookMessages.testMessage }),
    headers: apiKey ? { 'api-key': apiKey } : {},
    timeoutMs: app.config.WEBHOOK_TIMEOUT_MS,
    allowPrivateNetworks: app.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
  });
  if (!test.ok) {
    app.log.info({ url, outcome: test }, 'legacy webhook registration refused by its test POST');
    throw Refusals.testPost(test, app.config.WEBHOOK_TIMEOUT_MS);
  }
  const id = app.ids.objectId();
  const state = await run(app, principal, id, { kind: 'createLegacy', subscriptionId: id, legacyType: input.type, url, ...protectApiKey(app.config, id, apiKey) });
  return { state, apiKey };
}

/**
 * A named URL whose host is an address literal can be judged at once; a name is judged at each
 * delivery, when it is resolved (what it resolves to may change).
 */
function refuseInternalLiteral(app: AppContext, text: string | undefined): void {
  if (text === undefined || app.config.WEBHOOK_ALLOW_PRIVATE_NETWORKS) return;
  const checked = checkWebhookUrl(text.trim());
  if ('problem' in checked) return; // the decider refuses it, saying why
  const host = new URL(checked.url).hostname.replace(/^\[|\]$/g, '');
  const range = isIP(host) ? refusalOf(host) : null;
  if (range) throw Refusals.address(range);
}

export function deleteSubscription(app: AppContext, principal: Principal, id: string, family: 'legacy' | 'named') {
  return run(app, principal, id, { kind: 'delete', family }, true);
}

/** The secret is returned here and on rotation only; events and tables keep it sealed. */
export async function createNamedSubscription(app: AppContext, principal: Principal, input: { url: string; events: string[]; description?: string | null }) {
  refuseInternalLiteral(app, input.url);
  const id = app.ids.objectId();
  const secret = generateSigningSecret();
  const sealedSecret = secretBoxFor(app.config).seal(secret, id);
  const state = await run(app, principal, id, {
    kind: 'createNamed',
    subscriptionId: id,
    url: input.url,
    events: input.events,
    description: input.description ?? null,
    sealedSecret,
  });
  return { state, secret };
}

export function updateSubscription(app: AppContext, principal: Principal, id: string, changes: { url?: string; events?: string[]; description?: string | null }) {
  refuseInternalLiteral(app, changes.url);
  return run(app, principal, id, { kind: 'update', ...changes });
}

export function disableSubscription(app: AppContext, principal: Principal, id: string) {
  return run(app, principal, id, { kind: 'disable', family: 'named', reason: 'manual' }, true);
}

/** Enabling starts a fresh count of consecutive failures. */
export async function enableSubscription(app: AppContext, principal: Principal, id: string) {
  const state = await run(app, principal, id, { kind: 'enable' });
  await resetFailures(app.db, id);
  return state;
}

/** The old secret keeps signing (second header) for WEBHOOK_SECRET_OVERLAP_SECONDS. */
export async function rotateSecret(app: AppContext, principal: Principal, id: string) {
  const secret = generateSigningSecret();
  const previousSecretExpiresAt = new Date(app.clock.now().getTime() + app.config.WEBHOOK_SECRET_OVERLAP_SECONDS * 1000).toISOString();
  const sealedSecret = secretBoxFor(app.config).seal(secret, id);
  const state = await run(app, principal, id, { kind: 'rotateSecret', sealedSecret, previousSecretExpiresAt }, true);
  return { state, secret };
}
