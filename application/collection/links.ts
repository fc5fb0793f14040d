import { createHmac } from 'node:crypto';
import { keyringFor, type Config } from '../../config/index.ts';
import { hashLinkToken } from '../../projections/collection/queries.ts';

/** The purpose label that turns the sealing key into the link key, so a link token opens nothing else. */
const LINK_KEY_PURPOSE = 'collection-recipient-links';

function linkKey(config: Config): Buffer {
  return createHmac('sha256', keyringFor(config, 'sealing').primary.secret).update(LINK_KEY_PURPOSE).digest();
}

/**
 * A recipient's link: the token is base64url(HMAC-SHA256(link key, `<collectionId>:<recipientId>:<linkVersion>`)),
 * so the notification process can rebuild the current link to mail it without the token ever
 * being stored; a reissue bumps the version and the older token stops matching the stored hash.
 */
export function recipientLink(app: { config: Config }, collectionId: string, recipientId: string, linkVersion: number): { token: string; url: string; hash: string } {
  const token = createHmac('sha256', linkKey(app.config)).update(`${collectionId}:${recipientId}:${linkVersion}`).digest('base64url');
  return { token, url: `${app.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/c/${token}`, hash: hashLinkToken(token) };
}
