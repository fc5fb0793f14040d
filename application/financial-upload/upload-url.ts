import { createHmac, timingSafeEqual } from 'node:crypto';
import { keyringFor, type Config } from '../../config/index.ts';

/** The service's own upload endpoint (local object store): `PUT /uploads/<key>`. */
export const UPLOAD_PATH = '/uploads';

/**
 * What a signed upload URL binds, as S3's presigned PUT does: the key, the exact size, the content
 * type and the expiry. The request's own Content-Length and Content-Type are what is verified, so
 * any other value fails the signature. Keyed with the download-link keyring (same rotation, a `kid`
 * in the URL), with a purpose prefix so that no download signature is ever a valid upload one.
 */
function signatureOf(secret: string, key: string, sizeBytes: number, contentType: string, expires: number): string {
  return createHmac('sha256', secret).update(`upload\n${key}\n${sizeBytes}\n${contentType}\n${expires}`).digest('base64url');
}

export function signedUploadUrl(config: Config, key: string, sizeBytes: number, contentType: string, expiresAt: Date): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const { kid, secret } = keyringFor(config, 'downloads').primary;
  const base = config.PUBLIC_BASE_URL.replace(/(?<!\/)\/+$/, '');
  return `${base}${UPLOAD_PATH}/${key}?expires=${expires}&kid=${kid}&signature=${signatureOf(secret, key, sizeBytes, contentType, expires)}`;
}

export interface UploadAttempt {
  key: string;
  /** The request's Content-Length (null when absent or not a number). */
  sizeBytes: number | null;
  /** The request's Content-Type, exactly as sent. */
  contentType: string;
  expires: number;
  kid: string;
  signature: string;
}

export function verifyUpload(config: Config, attempt: UploadAttempt, now: Date): 'valid' | 'expired' | 'invalid' {
  const key = keyringFor(config, 'downloads').get(attempt.kid);
  if (!key || attempt.sizeBytes === null || !Number.isInteger(attempt.expires)) return 'invalid';
  const expected = Buffer.from(signatureOf(key.secret, attempt.key, attempt.sizeBytes, attempt.contentType, attempt.expires));
  const given = Buffer.from(attempt.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return attempt.expires * 1000 < now.getTime() ? 'expired' : 'valid';
}
