import { createHmac } from 'node:crypto';
import { keyringFor, type Config } from '../../config/index.ts';
import { hashLinkToken } from '../../platform/link-token.ts';

/** The purpose label that turns the sealing key into the link key, so a link token opens nothing else. */
const LINK_KEY_PURPOSE = 'collection-recipient-links';

function linkKey(config: Config): Buffer {
  return createHmac('sha256', keyringFor(config, 'sealing').primary.secret).update(LINK_KEY_PURPOSE).digest();
}

const ID_BYTES = 12;
const MAC_BYTES = 32;

/**
 * A recipient's link: the token is base64url(collection id ‖ recipient id ‖ HMAC-SHA256(link key,
 * `<collectionId>:<recipientId>:<linkVersion>`)), so the notification process can rebuild the
 * current link to mail it without the token ever being stored, and the page finds the collection
 * from the token itself (no read model that may lag behind a creation). The HMAC makes it
 * unguessable; a reissue bumps the version and the older token stops matching the stored hash.
 */
export function recipientLink(app: { config: Config }, collectionId: string, recipientId: string, linkVersion: number): { token: string; url: string; hash: string } {
  const mac = createHmac('sha256', linkKey(app.config)).update(`${collectionId}:${recipientId}:${linkVersion}`).digest();
  const token = Buffer.concat([Buffer.from(collectionId, 'hex'), Buffer.from(recipientId, 'hex'), mac]).toString('base64url');
  return { token, url: `${app.config.PUBLIC_BASE_URL.replace(/(?<!\/)\/+$/, '')}/c/${token}`, hash: hashLinkToken(token) };
}

/**
 * The collection and recipient a token names, or null when it is not of that shape (links issued
 * before tokens carried them are found by hash instead). Only a claim: the caller checks the
 * token's hash against the one the collection's stream holds for that recipient.
 */
export function linkClaim(token: string): { collectionId: string; recipientId: string } | null {
  if (!/^[A-Za-z0-9_-]{75}$/.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length !== 2 * ID_BYTES + MAC_BYTES) return null;
  return { collectionId: bytes.subarray(0, ID_BYTES).toString('hex'), recipientId: bytes.subarray(ID_BYTES, 2 * ID_BYTES).toString('hex') };
}
