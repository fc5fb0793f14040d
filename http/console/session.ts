import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { keyringFor, purposeKey } from '../../config/index.ts';
import type { AppContext } from '../../application/context.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { fromOurOrigin } from '../origin.ts';

export const SESSION_COOKIE = 'console_session';
/** The sign-in form's token before there is a session (double submit: cookie and field must match). */
const LOGIN_CSRF_COOKIE = 'console_csrf';
const PATH = '/console';

/** HttpOnly, SameSite=Lax, only under /console, and Secure whenever the request came over HTTPS (behind a proxy too). */
const cookieOptions = (ctx: Context, expires?: Date) => ({ httpOnly: true, sameSite: 'lax' as const, secure: ctx.secure, path: PATH, overwrite: true, ...(expires && { expires }) });

export function setSessionCookie(ctx: Context, token: string, expiresAt: string): void {
  ctx.cookies.set(SESSION_COOKIE, token, cookieOptions(ctx, new Date(expiresAt)));
}

export function clearSessionCookie(ctx: Context): void {
  ctx.cookies.set(SESSION_COOKIE, '', { ...cookieOptions(ctx), expires: new Date(0) });
}

/** The signed-in user of a console request, or null (no cookie, or a session that ended). */
export async function consolePrincipal(app: AppContext, ctx: Context): Promise<Principal | null> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  if (!token) return null;
  try {
    return await app.authenticator.verify(token, 'console');
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'unauthenticated') return null;
    throw error;
  }
}

const csrfKeys = new WeakMap<object, Buffer>();

/**
 * A session's form token: an HMAC of its id under the form tokens' own key (purposeKey), so
 * nothing is stored and another session's token is useless.
 */
export function sessionCsrf(app: AppContext, sessionId: string): string {
  const keyring = keyringFor(app.config, 'jwt');
  let key = csrfKeys.get(keyring);
  if (!key) csrfKeys.set(keyring, (key = purposeKey(keyring.primary.secret, 'console-csrf')));
  return createHmac('sha256', key).update(sessionId).digest('base64url');
}

/** The sign-in form's token: the cookie's when it has one, a new one (and its cookie) otherwise. */
export function loginCsrf(ctx: Context): string {
  const known = ctx.cookies.get(LOGIN_CSRF_COOKIE);
  if (known && /^[A-Za-z0-9_-]{43}$/.test(known)) return known;
  const token = randomBytes(32).toString('base64url');
  ctx.cookies.set(LOGIN_CSRF_COOKIE, token, { ...cookieOptions(ctx), sameSite: 'strict' });
  return token;
}

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Every console POST: a form from this service (Origin, when the browser sends it, is ours) that
 * carries the expected token. 403 otherwise; nothing has been done yet.
 */
export function checkCsrf(app: AppContext, ctx: Context, field: unknown, expected: string | undefined): void {
  if (!fromOurOrigin(app, ctx)) throw new DomainError('forbidden', Messages.invalidCsrf);
  if (typeof field !== 'string' || !expected || !same(field, expected)) throw new DomainError('forbidden', Messages.invalidCsrf);
}

export const loginCsrfCookie = (ctx: Context) => ctx.cookies.get(LOGIN_CSRF_COOKIE);
