import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { LEGACY_KID, purposeKey, type Keyring } from '../../config/index.ts';
import { OBJECT_ID } from '../../platform/ids.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';

/** The one algorithm we sign and accept: a token naming any other (none included) is refused. */
const ALGORITHM = 'HS256';

export interface TokenClaims {
  sessionId: string;
  userId: string;
  organizationId: string;
}

/**
 * The access tokens' own key drawn from a JWT_KEYS key (config/secrets.ts, purposeKey). Tokens
 * signed before keys were derived per purpose (with the JWT_KEYS key itself) no longer verify:
 * callers authenticate again, console users sign in again.
 */
export const tokenSigningKey = (secret: string) => purposeKey(secret, 'access-tokens');

/** JWT_KEYS as KeyObjects built once: jsonwebtoken would otherwise rebuild one from the text on every call. */
export interface TokenKeys {
  signing: { kid: string; key: KeyObject };
  verifying(kid: string): KeyObject | undefined;
}

export function tokenKeys(keyring: Keyring): TokenKeys {
  const objects = new Map<string, KeyObject>();
  const objectOf = (kid: string) => {
    const key = keyring.get(kid);
    if (!key) return undefined;
    let object = objects.get(kid);
    if (!object) objects.set(kid, (object = createSecretKey(tokenSigningKey(key.secret))));
    return object;
  };
  return { signing: { kid: keyring.primary.kid, key: objectOf(keyring.primary.kid)! }, verifying: objectOf };
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** The token only points at a session; what the caller may do is read from the session at each call. */
export function signSessionToken(keys: TokenKeys, session: TokenClaims & { issuedAt: string; expiresAt: string }): string {
  const payload = { sub: session.userId, org: session.organizationId, sid: session.sessionId, iat: seconds(session.issuedAt), exp: seconds(session.expiresAt) };
  return jwt.sign(payload, keys.signing.key, { algorithm: ALGORITHM, keyid: keys.signing.kid });
}

const invalid = () => new DomainError('unauthenticated', Messages.invalidToken);

/** A token without kid was issued before key ids: it is checked against the legacy key. */
function keyOf(keys: TokenKeys, token: string): KeyObject {
  const header = jwt.decode(token, { complete: true })?.header;
  const kid = header?.kid ?? LEGACY_KID;
  const key = typeof kid === 'string' ? keys.verifying(kid) : undefined;
  if (!key) throw invalid();
  return key;
}

export function verifySessionToken(keys: TokenKeys, token: string, now: Date): TokenClaims {
  let payload: jwt.JwtPayload | string;
  try {
    payload = jwt.verify(token, keyOf(keys, token), { algorithms: [ALGORITHM], clockTimestamp: Math.floor(now.getTime() / 1000) });
  } catch (error) {
    if (error instanceof jwt.TokenExpiredError) throw new DomainError('unauthenticated', Messages.expiredToken);
    throw invalid();
  }
  if (typeof payload === 'string') throw invalid();
  const { sid, sub, org } = payload as Record<string, unknown>;
  if (![sid, sub, org].every((v) => typeof v === 'string' && OBJECT_ID.test(v))) throw invalid();
  return { sessionId: sid as string, userId: sub as string, organizationId: org as string };
}
