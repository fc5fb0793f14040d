import { createHmac, randomBytes } from 'node:crypto';

/** `whsec_` + 32 random bytes: the prefix lets a leaked secret be recognized by scanners. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** Hex HMAC-SHA256, keyed with the secret's text, of "<timestamp>.<raw body>" (spec, Signature and headers). */
export function signatureOf(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

export interface SignedDelivery {
  deliveryId: string;
  event: string;
  body: string;
  secret: string;
  /** During a rotation's overlap: the secret before it. */
  previousSecret: string | null;
  /** Unix seconds of this attempt. */
  timestamp: number;
}

/**
 * Headers of a named delivery. The timestamp is the attempt's (receivers reject stale ones); the
 * body and delivery id are the same on every attempt. While a rotation's overlap lasts, the old
 * secret's signature travels in X-Service-Signature-Previous, so receivers still holding the old
 * secret keep verifying; X-Service-Signature always carries the current secret's signature.
 */
export function signedHeaders(delivery: SignedDelivery): Record<string, string> {
  const timestamp = String(delivery.timestamp);
  const headers: Record<string, string> = {
    'X-Service-Signature': `sha256=${signatureOf(delivery.secret, timestamp, delivery.body)}`,
    'X-Service-Timestamp': timestamp,
    'X-Service-Event': delivery.event,
    'X-Service-Delivery': delivery.deliveryId,
  };
  if (delivery.previousSecret) headers['X-Service-Signature-Previous'] = `sha256=${signatureOf(delivery.previousSecret, timestamp, delivery.body)}`;
  return headers;
}
