import { createHmac, timingSafeEqual } from 'node:crypto';
import { loadOrCreateSecret, type Config } from '../../../config/index.ts';

/**
 * Export downloads are plain links (exportUrl works in a browser, a webhook receiver or a mail)
 * so they carry their own authorization: an HMAC over the file id and an expiry, with a secret
 * kept in DATA_DIR (shared by every process on it).
 */
const secrets = new Map<string, string>();
function secretOf(config: Pick<Config, 'DATA_DIR'>): string {
  let secret = secrets.get(config.DATA_DIR);
  if (!secret) {
    secret = loadOrCreateSecret(config.DATA_DIR, 'downloads');
    secrets.set(config.DATA_DIR, secret);
  }
  return secret;
}

function signatureOf(config: Pick<Config, 'DATA_DIR'>, blobId: string, expires: number): string {
  return createHmac('sha256', secretOf(config)).update(`${blobId}.${expires}`).digest('base64url');
}

export const DOWNLOAD_PATH = '/report/download';

export function signedDownloadUrl(config: Pick<Config, 'DATA_DIR' | 'PUBLIC_BASE_URL'>, blobId: string, expiresAt: Date): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const base = config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  return `${base}${DOWNLOAD_PATH}/${blobId}?expires=${expires}&signature=${signatureOf(config, blobId, expires)}`;
}

export function verifyDownload(config: Pick<Config, 'DATA_DIR'>, blobId: string, expires: number, signature: string, now: Date): boolean {
  if (!Number.isInteger(expires) || expires * 1000 < now.getTime()) return false;
  const expected = Buffer.from(signatureOf(config, blobId, expires));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A link valid for DOWNLOAD_URL_TTL_SECONDS from `now`: GET /v2/report signs a fresh one on each read. */
export function freshDownloadUrl(config: Pick<Config, 'DATA_DIR' | 'PUBLIC_BASE_URL' | 'DOWNLOAD_URL_TTL_SECONDS'>, blobId: string, now: Date) {
  const expiresAt = new Date(now.getTime() + config.DOWNLOAD_URL_TTL_SECONDS * 1000);
  return { url: signedDownloadUrl(config, blobId, expiresAt), expiresAt };
}
