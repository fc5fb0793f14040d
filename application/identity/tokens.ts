import type { KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
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

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** The token only points at a session; what the caller may do is read from the session at each call. */
export function signSessionToken(key: KeyObject, session: TokenClaims & { issuedAt: string; expiresAt: string }): string {
  const payload = { sub: session.userId, org: session.organizationId, sid: session.sessionId, iat: seconds(session.issuedAt), exp: seconds(session.expiresAt) };
  return jwt.sign(payload, key, { algorithm: ALGORITHM });
}

const invalid = () => new DomainError('unauthenticated', Messages.invalidToken);

export function verifySessionToken(key: KeyObject, token: string, now: Date): TokenClaims {
  let payload: jwt.JwtPayload | string;
  try {
    payload = jwt.verify(token, key, { algorithms: [ALGORITHM], clockTimestamp: Math.floor(now.getTime() / 1000) });
  } catch (error) {
    if (error instanceof jwt.TokenExpiredError) throw new DomainError('unauthenticated', Messages.expiredToken);
    throw invalid();
  }
  if (typeof payload === 'string') throw invalid();
  const { sid, sub, org } = payload as Record<string, unknown>;
  if (![sid, sub, org].every((v) => typeof v === 'string' && OBJECT_ID.test(v))) throw invalid();
  return { sessionId: sid as string, userId: sub as string, organizationId: org as string };
}
