import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigurationError, type Config } from '../../../config/index.ts';
import { INTERNAL_SIGNATURE_PROVIDER } from '../../../domain/collection/kinds/signature.ts';
import { SignatureMessages } from '../../../domain/collection/messages.ts';
import { DomainError } from '../../../domain/shared/errors.ts';

/** What an external provider tells about an envelope: it was canceled or it expired there. */
export interface ProviderOutcome {
  collectionId: string;
  itemId: string;
  outcome: 'CANCELED' | 'EXPIRED';
  reason: string;
}

/** A callback as received: its authentication headers and its body's exact text (undefined when it had none). */
export interface ProviderCallback {
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: string | undefined;
}

/**
 * A signature provider. `interno` (the default) is the service's own signing: the parties sign on
 * the recipient page, so it has no callbacks. An external provider collects the signatures itself
 * and calls back; `authenticate` proves a callback came from it (DomainError 'unauthenticated'
 * otherwise) and hands back its body, parsed from the very bytes it checked.
 */
export interface SignatureProvider {
  readonly name: string;
  readonly authenticate: ((callback: ProviderCallback, now: Date) => unknown) | null;
}

const internalProvider: SignatureProvider = { name: INTERNAL_SIGNATURE_PROVIDER, authenticate: null };

/** A callback older or newer than this is refused (a replayed request), as for the service's own webhooks. */
const CALLBACK_WINDOW_SECONDS = 300;

/**
 * An external provider whose callbacks carry `X-Signature-Timestamp` (Unix seconds) and
 * `X-Signature: sha256=<hex>`, the HMAC-SHA256 with the shared secret of "<timestamp>.<body>",
 * the body exactly as sent (its raw bytes, as most providers sign them): a body re-ordered or
 * re-spaced after signing is not the body that was signed. No re-encoding on either side, so
 * no two JSON encoders have to agree.
 */
export function hmacProvider(name: string, secret: string): SignatureProvider {
  return {
    name,
    authenticate({ timestamp, signature, rawBody }, now) {
      const seconds = Number(timestamp);
      if (!timestamp || !Number.isInteger(seconds) || Math.abs(now.getTime() / 1000 - seconds) > CALLBACK_WINDOW_SECONDS) {
        throw new DomainError('unauthenticated', SignatureMessages.providerSignatureInvalid);
      }
      const expected = Buffer.from(`sha256=${signProviderCallback(secret, timestamp, rawBody ?? '')}`);
      const given = Buffer.from(signature ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new DomainError('unauthenticated', SignatureMessages.providerSignatureInvalid);
      // The body parser read the same text already (strict JSON), so this parse cannot fail; no body reads as none.
      return rawBody ? (JSON.parse(rawBody) as unknown) : undefined;
    },
  };
}

/** Hex HMAC-SHA256 of "<timestamp>.<body as sent>" (what a provider sends in X-Signature). */
function signProviderCallback(secret: string, timestamp: string, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
}

const NAME = /^[a-z][a-z0-9-]{1,39}$/;

/** The providers of this configuration: interno, and each `name:secret` of SIGNATURE_PROVIDERS. */
export function signatureProviders(config: Pick<Config, 'SIGNATURE_PROVIDERS'>): Map<string, SignatureProvider> {
  const providers = new Map([[internalProvider.name, internalProvider]]);
  for (const entry of (config.SIGNATURE_PROVIDERS ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const at = entry.indexOf(':');
    const name = entry.slice(0, at);
    const secret = entry.slice(at + 1);
    if (at < 0 || !NAME.test(name) || providers.has(name) || secret.length < 16) {
      throw new ConfigurationError('SIGNATURE_PROVIDERS: each entry is name:secret (name in lower case, unique, not interno; secret of 16 characters or more)');
    }
    providers.set(name, hmacProvider(name, secret));
  }
  return providers;
}
