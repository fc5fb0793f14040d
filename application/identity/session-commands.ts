import { keyringFor, type Config, type Keyring } from '../../config/index.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { identityStreams } from '../../domain/identity/events.ts';
import { sessionDecider, type SessionState } from '../../domain/identity/session-decider.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { grantsOfAccount, revokeGrant } from '../../platform/oauth-store.ts';
import { IDENTITY_PROJECTION } from '../../projections/identity/projection.ts';
import { findCredentialByClientId, liveConsoleSessionsOf } from '../../projections/identity/queries.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { guardSecretTry } from './limits.ts';
import { verifySecret } from './secrets.ts';
import { signSessionToken, tokenKeys, type TokenKeys } from './tokens.ts';

/** The contract's Session object. accessToken appears only in the reply that issues it. */
export interface SessionReply {
  id: string;
  accessToken?: string;
  expiresAt: string;
  /** Token lifetime in seconds (the release notes' field). */
  expiresIn: number;
  userId: string;
  organizationId: string;
  loggedOutAt: string | null;
  createdAt: string;
  updatedAt: string;
}

const keys = new WeakMap<Keyring, TokenKeys>();

export function signingKeys(config: Config): TokenKeys {
  const keyring = keyringFor(config, 'jwt');
  let built = keys.get(keyring);
  if (!built) keys.set(keyring, (built = tokenKeys(keyring)));
  return built;
}

export function sessionReply(state: SessionState, accessToken?: string): SessionReply {
  return {
    id: state.sessionId!,
    ...(accessToken ? { accessToken } : {}),
    expiresAt: state.expiresAt,
    expiresIn: Math.round((Date.parse(state.expiresAt) - Date.parse(state.issuedAt)) / 1000),
    userId: state.userId,
    organizationId: state.organizationId,
    loggedOutAt: state.loggedOutAt,
    createdAt: state.issuedAt,
    updatedAt: state.updatedAt,
  };
}

/**
 * POST /auth/authenticate. Order matters: an unknown or revoked client id is told apart first
 * (the contract's 400); the try is counted (limits.ts: per client id and caller address, and per
 * address) and a locked one refused before any hashing; only then is the secret checked. The
 * reply waits for the sessions projection so the token works at once.
 */
export async function authenticate(app: AppContext, clientId: string | undefined, clientSecret: string | undefined, address: string): Promise<SessionReply> {
  const credential = clientId ? await findCredentialByClientId(app.db, clientId) : undefined;
  if (!credential || credential.revokedAt) throw new DomainError('invalid', Messages.invalidClientId);
  await guardSecretTry(app, credential.clientId, address, async () => {
    if (!clientSecret || !(await verifySecret(clientSecret, credential.secretHash))) throw new DomainError('unauthenticated', Messages.invalidClientSecret);
  });
  const { state, token } = await startSession(app, { userId: credential.userId, organizationId: credential.organizationId, credentialId: credential.id, ttlSeconds: app.config.TOKEN_TTL_SECONDS });
  return sessionReply(state, token);
}

/**
 * A new session and its signed token, once the identity read tables show it (the token works at
 * once). credentialId null: a console session.
 */
export async function startSession(app: AppContext, who: { userId: string; organizationId: string; credentialId: string | null; ttlSeconds: number }): Promise<{ state: SessionState; token: string }> {
  const sessionId = app.ids.objectId();
  const { state, position } = await handleCommand(app.store, identityStreams.session(sessionId), sessionDecider, { type: 'StartSession', sessionId, ...who, at: app.clock.now() });
  await app.readYourWrites([IDENTITY_PROJECTION], position);
  return { state, token: signSessionToken(signingKeys(app.config), { ...state, sessionId }) };
}

/** POST /auth/logout: ends the caller's own session; its token is refused from the reply on. */
export async function logout(app: AppContext, principal: Principal): Promise<SessionReply> {
  const { state, position } = await handleCommand(app.store, identityStreams.session(principal.sessionId), sessionDecider, {
    type: 'LogOut',
    at: app.clock.now(),
  });
  await app.readYourWrites([IDENTITY_PROJECTION], position);
  app.authenticator.forget(principal.sessionId);
  return sessionReply(state);
}

/**
 * Every other console session of the signed-in user ends, and every agent (MCP grant) the user
 * authorized; the session asking stays. After a change that someone holding only the old factors
 * must not outlive (a new password, TOTP turned on): a grant is given at a console sign-in, so
 * whoever had the password alone could have given one to themselves.
 */
export async function endOtherSessions(app: AppContext, principal: Principal): Promise<void> {
  let last = null;
  const ended: string[] = [];
  for (const sessionId of await liveConsoleSessionsOf(app.db, principal.userId, app.clock.now())) {
    if (sessionId === principal.sessionId) continue;
    ({ position: last } = await handleCommand(app.store, identityStreams.session(sessionId), sessionDecider, { type: 'LogOut', at: app.clock.now() }));
    ended.push(sessionId);
  }
  if (last) await app.readYourWrites([IDENTITY_PROJECTION], last);
  // The table's notice reaches this process's cache a moment after the commit; the reply must not
  // come first, or the very next request of an ended session would still pass (as logout does).
  for (const sessionId of ended) app.authenticator.forget(sessionId);
  for (const grant of await grantsOfAccount(app.db, principal.userId)) await revokeGrant(app.db, grant.grantId);
}
