import type { Knex } from 'knex';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../../config/index.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import type { Principal } from '../../domain/identity/access.ts';
import type { UserState } from '../../domain/identity/user-decider.ts';
import type { RequestLimiter } from '../context.ts';
import { verifySecret } from './secrets.ts';

/**
 * Failed-secret counters of rate-limiter-flexible in PostgreSQL (table identity_rate_limits,
 * created by migration), so every process of the deployment shares them. If the database does
 * not answer, each process falls back to counting in memory (the library's insurance limiter)
 * rather than failing the request.
 */
export function sharedLimiter(db: Knex, keyPrefix: string, points: number, duration: number, blockDuration = 0): RateLimiterPostgres {
  const options = { keyPrefix, points, duration, blockDuration };
  return new RateLimiterPostgres({
    ...options,
    storeClient: db,
    storeType: 'knex',
    tableName: 'identity_rate_limits',
    tableCreated: true,
    insuranceLimiter: new RateLimiterMemory(options),
  });
}

/** A limiter's refusal as the API's 429, with Retry-After in whole seconds (at least one). */
export function tooMany(message: string, refusal: RateLimiterRes): DomainError {
  const retryAfter = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
  return new DomainError('too_many', message, undefined, { 'Retry-After': String(retryAfter) });
}

/** How often a process adds its counts to the shared ones and learns the others'. */
const SYNC_MS = 100;

interface Window {
  /** Points counted here and not yet added to the shared row. */
  pending: number;
  /** Points in the shared row as of the last sync, ours included. */
  shared: number;
  /** When the window ends (epoch ms): the shared row's once synced. */
  expire: number;
}

/**
 * Fixed windows counted in memory and added to the shared rows of identity_rate_limits every
 * SYNC_MS, in one statement without a synchronous commit: a request costs no query and no WAL
 * flush. The price is that between syncs a process does not see what the others counted, so a
 * deployment of N processes may let through up to N times one SYNC_MS's worth of requests above a
 * limit; and a crash loses at most that many counts. If the database does not answer, counting
 * goes on in memory and the counts are sent at the next sync that succeeds.
 */
class SyncedWindows {
  private readonly windows = new Map<string, Window>();
  private timer: NodeJS.Timeout | undefined;
  private syncing = false;
  private closed = false;

  constructor(
    private readonly db: Knex,
    private readonly windowMs: number,
  ) {}

  /** Count one point for `key`: the points in its window so far, this one included, and when it ends. */
  consume(key: string, now: number): { consumed: number; expire: number } {
    let window = this.windows.get(key);
    if (!window || window.expire <= now) this.windows.set(key, (window = { pending: 0, shared: 0, expire: now + this.windowMs }));
    window.pending++;
    if (!this.closed) this.timer ??= setTimeout(() => void this.sync(), SYNC_MS).unref();
    return { consumed: window.shared + window.pending, expire: window.expire };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    while (this.syncing) await new Promise((resolve) => setTimeout(resolve, 5));
    if ([...this.windows.values()].some((w) => w.pending > 0)) await this.sync();
  }

  private async sync(): Promise<void> {
    if (this.syncing) return;
    this.syncing = true;
    const sent = [...this.windows].filter(([, w]) => w.pending > 0).map(([key, window]) => ({ key, points: window.pending, window }));
    try {
      const rows = await this.db.transaction(async (trx) => {
        await trx.raw('set local synchronous_commit = off');
        const result = await trx.raw(
          `insert into identity_rate_limits as r (key, points, expire)
           select i.key, i.points, ? from jsonb_to_recordset(?::jsonb) as i(key text, points int)
           on conflict (key) do update set
             points = case when r.expire <= ? then excluded.points else r.points + excluded.points end,
             expire = case when r.expire <= ? then excluded.expire else r.expire end
           returning r.key, r.points, r.expire`,
          [Date.now() + this.windowMs, JSON.stringify(sent.map(({ key, points }) => ({ key, points }))), Date.now(), Date.now()],
        );
        return result.rows as { key: string; points: number; expire: number }[];
      });
      const byKey = new Map(sent.map((s) => [s.key, s]));
      for (const row of rows) {
        const { window, points } = byKey.get(row.key)!;
        window.pending -= points;
        window.shared = row.points;
        window.expire = Number(row.expire);
      }
    } catch {
      // Counting goes on in memory; the pending points go with the next sync.
    } finally {
      this.syncing = false;
      this.timer = undefined;
      const now = Date.now();
      for (const [key, window] of this.windows) if (window.expire <= now && window.pending === 0) this.windows.delete(key);
      if (!this.closed && [...this.windows.values()].some((w) => w.pending > 0)) this.timer = setTimeout(() => void this.sync(), SYNC_MS).unref();
    }
  }
}

export interface LimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window ends. */
  resetSeconds: number;
}

/**
 * Every authenticated request counts once against its credential and once against its
 * organization; the reply reports the tighter of the two (RateLimit-* headers), and the first
 * limit passed refuses it with 429 and Retry-After.
 */
export function createRequestLimiter(db: Knex, config: Config): RequestLimiter {
  const windows = new SyncedWindows(db, config.RATE_LIMIT_WINDOW_SECONDS * 1000);
  const limits = [
    { prefix: 'credential', points: config.RATE_LIMIT_PER_CREDENTIAL, keyOf: (p: Principal) => p.credentialId ?? `session:${p.sessionId}` },
    { prefix: 'organization', points: config.RATE_LIMIT_PER_ORGANIZATION, keyOf: (p: Principal) => p.organizationId },
  ];
  return {
    async consume(principal) {
      const now = Date.now();
      const states = limits.map(({ prefix, points, keyOf }) => {
        const { consumed, expire } = windows.consume(`${prefix}:${keyOf(principal)}`, now);
        return { limit: points, remaining: points - consumed, resetSeconds: Math.max(1, Math.ceil((expire - now) / 1000)) };
      });
      // Tightest: the fewest requests left (negative once over), then the later reset.
      const tightest = states.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds) ? b : a));
      const state = { ...tightest, remaining: Math.max(0, tightest.remaining) };
      if (tightest.remaining < 0) {
        throw new DomainError('too_many', Messages.rateLimited, undefined, { ...limitHeaders(state), 'Retry-After': String(state.resetSeconds) });
      }
      return state;
    },
    close: () => windows.close(),
  };
}

/** The IETF draft's RateLimit-* fields (draft-ietf-httpapi-ratelimit-headers), reset in seconds. */
export function limitHeaders(state: LimitState): Record<string, string> {
  return { 'RateLimit-Limit': String(state.limit), 'RateLimit-Remaining': String(state.remaining), 'RateLimit-Reset': String(state.resetSeconds) };
}

/**
 * One kind of secret tried by callers (a client id's secret, a console login's password): each
 * try is counted in the shared table *before* the secret is checked, in the one statement that
 * adds the point and returns the count, so twenty tries sent at once get twenty different counts
 * and only AUTH_FAILURES_BEFORE_LOCK of them ever reach the (costly) check. The count is kept per
 * key and per caller address: the key's allowance stops guessing one secret, the address's stops
 * one caller from spreading its guesses over many keys.
 */
interface Lockout {
  /** Tries of one key (a client id with the caller's address, a login's e-mail). */
  byKey: RateLimiterPostgres;
  byAddress: RateLimiterPostgres;
  lockedMessage: string;
}

async function countTry(limiter: RateLimiterPostgres, key: string, message: string): Promise<void> {
  await limiter.consume(key).catch((refusal: unknown) => {
    throw refusal instanceof RateLimiterRes ? tooMany(message, refusal) : refusal;
  });
}

/**
 * Count a try of `key` from `address`, then run `check`, which throws when the secret is wrong.
 * Past the allowance (AUTH_FAILURES_BEFORE_LOCK tries of a key, AUTH_FAILURES_PER_ADDRESS from an
 * address, within AUTH_LOCK_SECONDS) the try is refused with 429 and Retry-After before any
 * check, and stays refused for AUTH_LOCK_SECONDS, even with the right secret. A right secret
 * gives its points back: the key starts again (only consecutive failures lock it), the address
 * keeps the count of its failures.
 */
async function guarded(lockout: Lockout, key: string, address: string, check: () => Promise<void>): Promise<void> {
  await countTry(lockout.byAddress, address, Messages.tooManyFailuresFromAddress);
  await countTry(lockout.byKey, key, lockout.lockedMessage);
  await check();
  await Promise.all([lockout.byKey.delete(key), lockout.byAddress.reward(address, 1)]);
}

// One per pool and kind keeps the insurance counters in one place (the real state is in the database).
const lockouts = { secret: new WeakMap<Knex, Lockout>(), login: new WeakMap<Knex, Lockout>() };

function lockoutOf(kind: keyof typeof lockouts, app: { db: Knex; config: Config }, lockedMessage: string): Lockout {
  let lockout = lockouts[kind].get(app.db);
  if (!lockout) {
    const { AUTH_FAILURES_BEFORE_LOCK, AUTH_FAILURES_PER_ADDRESS, AUTH_LOCK_SECONDS } = app.config;
    lockouts[kind].set(
      app.db,
      (lockout = {
        byKey: sharedLimiter(app.db, `${kind}-tries`, AUTH_FAILURES_BEFORE_LOCK, AUTH_LOCK_SECONDS, AUTH_LOCK_SECONDS),
        byAddress: sharedLimiter(app.db, `${kind}-tries-by-address`, AUTH_FAILURES_PER_ADDRESS, AUTH_LOCK_SECONDS, AUTH_LOCK_SECONDS),
        lockedMessage,
      }),
    );
  }
  return lockout;
}

/**
 * A client secret's try. The key is the client id *and* the caller's address: a stranger who
 * knows a client id (it is no secret) and sends wrong secrets from elsewhere locks only
 * themselves, never the integrator.
 */
export const guardSecretTry = (app: { db: Knex; config: Config }, clientId: string, address: string, check: () => Promise<void>) =>
  guarded(lockoutOf('secret', app, Messages.tooManyFailedSecrets), `${clientId}@${address}`, address, check);

/** OAuth client registrations per caller address (the MCP connector's open registration): at most this many an hour. */
export const CLIENT_REGISTRATIONS_PER_HOUR = 20;
const registrationLimits = new WeakMap<Knex, RateLimiterPostgres>();

/** Count one client registration from `address`; 429 with Retry-After once the hour's are used up. */
export async function countClientRegistration(app: { db: Knex }, address: string): Promise<void> {
  let limiter = registrationLimits.get(app.db);
  if (!limiter) registrationLimits.set(app.db, (limiter = sharedLimiter(app.db, 'oauth-registrations', CLIENT_REGISTRATIONS_PER_HOUR, 3600)));
  await limiter.consume(address).catch((refusal: unknown) => {
    throw refusal instanceof RateLimiterRes ? tooMany(Messages.tooManyClientRegistrations, refusal) : refusal;
  });
}

/** The console's sign-in: the key is the e-mail address (a person behind it can wait; a guesser cannot try on). */
export const guardLoginTry = (app: { db: Knex; config: Config }, email: string, address: string, check: () => Promise<void>) =>
  guarded(lockoutOf('login', app, Messages.tooManyFailedLogins), email, address, check);

/**
 * The password of a signed-in user, asked again before a change of what guards the account. Its
 * tries count against the same allowance as the sign-in's (the e-mail address, the caller's
 * address): whoever holds a session left open gets no more guesses at the password than a
 * stranger at the sign-in form, and the answer past the allowance is the same 429. `alsoCheck`
 * (a second factor) runs within the same counted try, so its guesses are bounded too.
 */
export async function checkCurrentPassword(app: { db: Knex; config: Config }, state: UserState, password: string, address: string, alsoCheck: () => void = () => undefined): Promise<void> {
  const check = async () => {
    if (!state.passwordHash || !(await verifySecret(password, state.passwordHash))) throw new DomainError('invalid', Messages.wrongCurrentPassword);
    alsoCheck();
  };
  // A user without an e-mail address cannot sign in, so has no console session to ask from.
  await (state.email ? guardLoginTry(app, state.email, address, check) : check());
}
