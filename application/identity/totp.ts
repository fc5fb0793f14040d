import { Secret, TOTP } from 'otpauth';
import { keyringFor } from '../../config/index.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { identityStreams } from '../../domain/identity/events.ts';
import { userDecider, type UserState } from '../../domain/identity/user-decider.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { SecretBox } from '../../platform/secrets/secret-box.ts';
import { IDENTITY_PROJECTION } from '../../projections/identity/projection.ts';
import { handleCommand, loadState } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { verifySecret } from './secrets.ts';

/** RFC 6238 as every authenticator app reads it: SHA-1, 6 digits, 30 s; a code of the step before or after is accepted (clock drift). */
const PERIOD = 30;
const WINDOW = 1;
const ISSUER = 'Análise de Crédito';

/** Sealed with SEALING_KEYS under a purpose of its own, bound to the user (a stored secret) or the session (an enrolment's). */
const boxFor = (app: AppContext) => new SecretBox(keyringFor(app.config, 'sealing'), 'identity-totp-secrets');

const totpOf = (secret: string, label = '') => new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secret) });

/** The time step a code belongs to, or null when it is not a code of this secret now. */
function stepOf(app: AppContext, secret: string, code: string): number | null {
  const now = app.clock.now().getTime();
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secret).validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
}

const codeStep = (app: AppContext, secret: string, code: string): number => {
  const step = stepOf(app, secret, code);
  if (step === null) throw new DomainError('invalid', Messages.wrongTotpCode);
  return step;
};

export interface Enrolment {
  /** base32, to type into an authenticator app. */
  secret: string;
  /** The otpauth:// URI (what a QR code would carry). */
  uri: string;
  /** The secret sealed to this session: the form carries it back with the code, nothing is stored before the code confirms it. */
  pending: string;
}

/** A new secret to enrol, or the one the form carried back (so a wrong code does not change the secret the user just added). */
export function enrolment(app: AppContext, principal: Principal, pending = ''): Enrolment {
  const secret = openEnrolment(app, principal, pending) ?? new Secret({ size: 20 }).base32;
  return { secret, uri: totpOf(secret, principal.userName).toString(), pending: boxFor(app).seal(secret, `enrolment:${principal.sessionId}`) };
}

/** The secret of an enrolment form, or null when the form carries none this session was given. */
function openEnrolment(app: AppContext, principal: Principal, pending: string): string | null {
  if (!pending) return null;
  try {
    return boxFor(app).open(pending, `enrolment:${principal.sessionId}`);
  } catch {
    return null;
  }
}

export async function totpIsOn(app: AppContext, userId: string): Promise<boolean> {
  return (await loadState(app.store, identityStreams.user(userId), userDecider)).state.totpSecret !== null;
}

/** Turn TOTP on with the secret the page showed, once a current code of it is typed. */
export async function enableTotp(app: AppContext, principal: Principal, pending: string, code: string): Promise<void> {
  const secret = openEnrolment(app, principal, pending);
  if (!secret) throw new DomainError('invalid', Messages.wrongTotpCode);
  const step = codeStep(app, secret, code);
  const sealedSecret = boxFor(app).seal(secret, principal.userId);
  const { position } = await handleCommand(app.store, identityStreams.user(principal.userId), userDecider, { type: 'EnableTotp', sealedSecret, step, at: app.clock.now() });
  if (position) await app.readYourWrites([IDENTITY_PROJECTION], position);
}

/** Turn TOTP off: the password and a current code, so a session left open is not enough. */
export async function disableTotp(app: AppContext, principal: Principal, password: string, code: string): Promise<void> {
  const loaded = await loadState(app.store, identityStreams.user(principal.userId), userDecider);
  const { state } = loaded;
  if (!state.passwordHash || !(await verifySecret(password, state.passwordHash))) throw new DomainError('invalid', Messages.wrongCurrentPassword);
  if (!state.totpSecret) throw new DomainError('invalid', Messages.totpNotOn);
  const step = codeStep(app, boxFor(app).open(state.totpSecret, principal.userId), code);
  await handleCommand(app.store, identityStreams.user(principal.userId), userDecider, { type: 'DisableTotp', step, at: app.clock.now() }, { loaded });
}

/**
 * The sign-in's second factor, for a user whose TOTP is on: the code must be of the secret now and
 * newer than the last one accepted; its step is recorded on the user's stream (a concurrent use
 * of the same code conflicts, reloads and is refused). Throws when the code is not accepted.
 */
export async function checkSignInCode(app: AppContext, userId: string, user: { state: UserState; revision: bigint }, code: string): Promise<void> {
  if (!user.state.totpSecret) return;
  const step = codeStep(app, boxFor(app).open(user.state.totpSecret, userId), code);
  await handleCommand(app.store, identityStreams.user(userId), userDecider, { type: 'UseTotpCode', step, at: app.clock.now() }, { loaded: user });
}
