import { createHash, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { keyringFor } from '../../config/index.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { identityStreams } from '../../domain/identity/events.ts';
import { userDecider, type SecondFactor, type UserState } from '../../domain/identity/user-decider.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { SecretBox } from '../../platform/secrets/secret-box.ts';
import { IDENTITY_PROJECTION } from '../../projections/identity/projection.ts';
import { handleCommand, loadState } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { checkCurrentPassword } from './limits.ts';
import { endOtherSessions } from './session-commands.ts';

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

/**
 * Recovery codes: RECOVERY_CODES codes of 16 base32 characters (80 bits, typed in groups of four),
 * each standing in once for a TOTP code when the authenticator is lost. Only their SHA-256 is
 * kept (bound to the user): 80 random bits cannot be found from it by trying, so no key is needed.
 */
const RECOVERY_CODES = 10;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () =>
    [...randomBytes(16)]
      .map((byte) => BASE32[byte % 32])
      .join('')
      .replace(/(.{4})(?!$)/g, '$1-'),
  );
}

const recoveryCodeHash = (userId: string, code: string) => createHash('sha256').update(`totp-recovery:${userId}:${code}`).digest('hex');

/** The hash of what was typed as a recovery code (blanks, dashes and case ignored), or null when it cannot be one. */
function typedRecoveryCode(userId: string, typed: string): string | null {
  // Bounded before it is normalized: a form field may be kilobytes long.
  if (typed.length > 64) return null;
  const code = typed.toLowerCase().replace(/[\s-]/g, '');
  return /^[a-z2-7]{16}$/.test(code) ? recoveryCodeHash(userId, code.replace(/(.{4})(?!$)/g, '$1-')) : null;
}

/** What the user typed as a second factor: six digits are a TOTP code of the user's secret, anything else a recovery code. */
function secondFactorOf(app: AppContext, userId: string, state: UserState, typed: string): SecondFactor {
  const code = typed.trim();
  if (!state.totpSecret) throw new DomainError('invalid', Messages.totpNotOn);
  if (/^\d{6}$/.test(code)) return { step: codeStep(app, boxFor(app).open(state.totpSecret, userId), code) };
  const recoveryCodeHash = typedRecoveryCode(userId, code);
  if (!recoveryCodeHash) throw new DomainError('invalid', Messages.wrongTotpCode);
  return { recoveryCodeHash };
}

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

/** The recovery codes of the user, in clear: shown once, right after they are made. */
export type RecoveryCodes = string[];

/**
 * Turn TOTP on with the secret the page showed, once a current code of it is typed; the user's
 * other console sessions end (whoever opened them with the password alone is out). Returns the
 * recovery codes, to show once.
 */
export async function enableTotp(app: AppContext, principal: Principal, pending: string, code: string): Promise<RecoveryCodes> {
  const secret = openEnrolment(app, principal, pending);
  if (!secret) throw new DomainError('invalid', Messages.wrongTotpCode);
  const step = codeStep(app, secret, code);
  const sealedSecret = boxFor(app).seal(secret, principal.userId);
  const codes = newRecoveryCodes();
  const recoveryCodeHashes = codes.map((c) => recoveryCodeHash(principal.userId, c));
  const { position } = await handleCommand(app.store, identityStreams.user(principal.userId), userDecider, { type: 'EnableTotp', sealedSecret, step, recoveryCodeHashes, at: app.clock.now() });
  if (position) await app.readYourWrites([IDENTITY_PROJECTION], position);
  await endOtherSessions(app, principal);
  return codes;
}

/** The password and a second factor (a current code or a recovery code): a session left open is not enough. */
async function reauthenticated(app: AppContext, principal: Principal, password: string, code: string, address: string) {
  const loaded = await loadState(app.store, identityStreams.user(principal.userId), userDecider);
  let proof: SecondFactor | undefined;
  await checkCurrentPassword(app, loaded.state, password, address, () => {
    proof = secondFactorOf(app, principal.userId, loaded.state, code);
  });
  return { loaded, proof: proof! };
}

/** Turn TOTP off (the password and a second factor); the recovery codes go with it. */
export async function disableTotp(app: AppContext, principal: Principal, password: string, code: string, address: string): Promise<void> {
  const { loaded, proof } = await reauthenticated(app, principal, password, code, address);
  await handleCommand(app.store, identityStreams.user(principal.userId), userDecider, { type: 'DisableTotp', proof, at: app.clock.now() }, { loaded });
}

/** New recovery codes (the password and a second factor): every earlier code stops working. */
export async function renewRecoveryCodes(app: AppContext, principal: Principal, password: string, code: string, address: string): Promise<RecoveryCodes> {
  const { loaded, proof } = await reauthenticated(app, principal, password, code, address);
  const codes = newRecoveryCodes();
  const recoveryCodeHashes = codes.map((c) => recoveryCodeHash(principal.userId, c));
  await handleCommand(app.store, identityStreams.user(principal.userId), userDecider, { type: 'RenewRecoveryCodes', proof, recoveryCodeHashes, at: app.clock.now() }, { loaded });
  return codes;
}

/** How many recovery codes the user has left (the page tells, so a user renews them in time). */
export async function recoveryCodesLeft(app: AppContext, userId: string): Promise<number> {
  return (await loadState(app.store, identityStreams.user(userId), userDecider)).state.recoveryCodes.length;
}

/**
 * The sign-in's second factor, for a user whose TOTP is on: a code of the secret now, newer than
 * the last one accepted, or a recovery code not used yet; either is recorded as spent on the
 * user's stream (a concurrent use of the same code conflicts, reloads and is refused). Throws
 * when the code is not accepted.
 */
export async function checkSignInCode(app: AppContext, userId: string, user: { state: UserState; revision: bigint }, code: string): Promise<void> {
  if (!user.state.totpSecret) return;
  const proof = secondFactorOf(app, userId, user.state, code);
  await handleCommand(app.store, identityStreams.user(userId), userDecider, { type: 'UseSecondFactor', proof, at: app.clock.now() }, { loaded: user });
}
