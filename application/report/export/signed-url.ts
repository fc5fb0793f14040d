import { createHmac, timingSafeEqual } from 'node:crypto';
import { keyringFor, LEGACY_KID, type Config } from '../../../config/index.ts';

/**
 * Export downloads are plain links (exportUrl works in a browser, a webhook receiver or a mail)
 * so they carry their own authorization: an HMAC over the file id and an expiry, keyed with
 * DOWNLOAD_URL_KEYS and naming its key (`kid`), so links signed before a rotation stay valid
 * while the old key is in the ring.
 */
function signatureOf(secret: string, blobId: string, expires: number): string {
  return createHmac('sha256', secret).update(`${blobId}.${expires}`).digest('base64url');
}

export const DOWNLOAD_PATH = '/report/download';

export function signedDownloadUrl(config: Config, blobId: string, expiresAt: Date): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const base = config.PUBLIC_BASE_URL.replace(/(?<!\/)\/+$/, '');
  const { kid, secret } = keyringFor(config, 'downloads').primary;
  return `${base}${DOWNLOAD_PATH}/${blobId}?expires=${expires}&kid=${kid}&signature=${signatureOf(secret, blobId, expires)}`;
}

/** A link without kid was signed before key ids, with the legacy key. */
export function verifyDownload(config: Config, blobId: string, expires: number, signature: string, now: Date, kid = LEGACY_KID): boolean {
  if (!Number.isInteger(expires) || expires * 1000 < now.getTime()) return false;
  const key = keyringFor(config, 'downloads').get(kid);
  if (!key) return false;
  const expected = Buffer.from(signatureOf(key.secret, blobId, expires));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A link valid for DOWNLOAD_URL_TTL_SECONDS from `now`: GET /v2/report signs a fresh one on each read. */
export function freshDownloadUrl(config: Config, blobId: string, now: Date) {
  const expiresAt = new Date(now.getTime() + config.DOWNLOAD_URL_TTL_SECONDS * 1000);
  return { url: signedDownloadUrl(config, blobId, expiresAt), expiresAt };
}
