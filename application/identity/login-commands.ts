import { identityStreams } from '../../domain/identity/events.ts';
import { normalizeEmail } from '../../domain/identity/email-decider.ts';
import { passwordProblem } from '../../domain/identity/password.ts';
import { userDecider } from '../../domain/identity/user-decider.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { IDENTITY_PROJECTION } from '../../projections/identity/projection.ts';
import { findLogin } from '../../projections/identity/queries.ts';
import { handleCommand, loadState } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { checkCurrentPassword, guardLoginTry } from './limits.ts';
import { hashPassword, needsRehash, verifySecret } from './secrets.ts';
import { checkSignInCode } from './totp-commands.ts';
import { endOtherSessions, startSession } from './session-commands.ts';

export interface ConsoleSession {
  token: string;
  sessionId: string;
  expiresAt: string;
}

/** Hashed once: an unknown address costs the same scrypt as a known one, so timing tells nothing. */
let decoy: Promise<string> | undefined;

function checkedPassword(password: string): string {
  const problem = passwordProblem(password);
  if (problem) throw new DomainError('invalid', problem);
  return password;
}

/**
 * The console's sign-in. Every try is counted before the password is hashed (limits.ts: per
 * e-mail address and per caller address) and a failure answers one text whichever was wrong (the
 * address, the password, or the TOTP code of a user who turned it on: application/identity/totp-commands.ts). A password hashed at an older cost is hashed again now that it is known to be right.
 * The session has no credential: only the console's cookie carries it.
 */
export async function signIn(app: AppContext, emailText: string, password: string, address: string, code = ''): Promise<ConsoleSession> {
  let email: string;
  try {
    email = normalizeEmail(emailText);
  } catch {
    throw new DomainError('unauthenticated', Messages.wrongLogin);
  }
  const login = await findLogin(app.db, email);
  await guardLoginTry(app, email, address, async () => {
    const matches = await verifySecret(password, login?.passwordHash ?? (await (decoy ??= hashPassword('decoy password'))));
    if (!login?.passwordHash || !matches) throw new DomainError('unauthenticated', Messages.wrongLogin);
    // The second factor is checked within the same counted try: a wrong code locks like a wrong
    // password, and the answer is the same text (it never tells that the password was right).
    await checkSignInCode(app, login.userId, await loadState(app.store, identityStreams.user(login.userId), userDecider), code).catch((error: unknown) => {
      throw error instanceof DomainError && error.kind === 'invalid' ? new DomainError('unauthenticated', Messages.wrongLogin) : error;
    });
  });
  if (needsRehash(login!.passwordHash!)) {
    await handleCommand(app.store, identityStreams.user(login!.userId), userDecider, { type: 'SetPassword', passwordHash: await hashPassword(password), at: app.clock.now() });
  }
  const { state, token } = await startSession(app, { userId: login!.userId, organizationId: login!.organizationId, credentialId: null, ttlSeconds: app.config.CONSOLE_SESSION_TTL_SECONDS });
  return { token, sessionId: state.sessionId!, expiresAt: state.expiresAt };
}

/** Set a user's password (the provisioning CLI): the user must have an e-mail address to sign in with. */
export async function setPassword(app: AppContext, userId: string, password: string): Promise<{ userId: string; organizationId: string; email: string }> {
  const passwordHash = await hashPassword(checkedPassword(password));
  const { state, position } = await handleCommand(app.store, identityStreams.user(userId), userDecider, { type: 'SetPassword', passwordHash, at: app.clock.now() });
  await app.readYourWrites([IDENTITY_PROJECTION], position);
  return { userId, organizationId: state.organizationId, email: state.email! };
}

/**
 * The signed-in user changes their own password: the current one first, then the new one twice.
 * Every other console session of the user ends (whoever else knew the old password is out); the
 * one making the change stays.
 */
export async function changePassword(app: AppContext, principal: Principal, input: { current: string; next: string; confirmation: string }, address: string): Promise<void> {
  const loaded = await loadState(app.store, identityStreams.user(principal.userId), userDecider);
  await checkCurrentPassword(app, loaded.state, input.current, address);
  checkedPassword(input.next);
  if (input.next !== input.confirmation) throw new DomainError('invalid', Messages.passwordMismatch);
  await handleCommand(app.store, identityStreams.user(principal.userId), userDecider, { type: 'SetPassword', passwordHash: await hashPassword(input.next), at: app.clock.now() }, { loaded });
  await endOtherSessions(app, principal);
}
