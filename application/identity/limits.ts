import type { Knex } from 'knex';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../../config/index.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import type { RequestLimiter } from '../context.ts';

/**
 * Counters live in PostgreSQL (table identity_rate_limits, created by migration), so every
 * process of the deployment shares them. If the database does not answer, each process falls
 * back to counting in memory (the library's insurance limiter) rather than failing the request.
 */
function sharedLimiter(db: Knex, keyPrefix: string, points: number, duration: number, blockDuration = 0): RateLimiterPostgres {
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

function tooMany(message: string, refusal: RateLimiterRes): DomainError {
  const retryAfter = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
  return new DomainError('too_many', message, undefined, { 'Retry-After': String(retryAfter) });
}

/** Every authenticated request counts once against its credential and once against its organization. */
export function createRequestLimiter(db: Knex, config: Config): RequestLimiter {
  const window = config.RATE_LIMIT_WINDOW_SECONDS;
  const perCredential = sharedLimiter(db, 'credential', config.RATE_LIMIT_PER_CREDENTIAL, window);
  const perOrganization = sharedLimiter(db, 'organization', config.RATE_LIMIT_PER_ORGANIZATION, window);
  return {
    async consume(principal) {
      try {
        await Promise.all([perCredential.consume(principal.credentialId), perOrganization.consume(principal.organizationId)]);
      } catch (error) {
        if (error instanceof RateLimiterRes) throw tooMany(Messages.rateLimited, error);
        throw error;
      }
    },
  };
}

export interface SecretLockout {
  /** 429 with Retry-After while the client id is locked. */
  ensureOpen(clientId: string): Promise<void>;
  recordFailure(clientId: string): Promise<void>;
  /** A right secret ends the run of failures: only consecutive ones lock. */
  clear(clientId: string): Promise<void>;
}

/**
 * AUTH_FAILURES_BEFORE_LOCK wrong secrets for one client id within AUTH_LOCK_SECONDS lock that
 * client id for AUTH_LOCK_SECONDS. The failure that reaches the limit still answers 401; the
 * requests after it answer 429 until the lock ends, even with the right secret.
 */
function createSecretLockout(db: Knex, config: Config): SecretLockout {
  // The library blocks on the first consume *above* points, so points is one below the limit.
  const failures = sharedLimiter(db, 'secret-failures', config.AUTH_FAILURES_BEFORE_LOCK - 1, config.AUTH_LOCK_SECONDS, config.AUTH_LOCK_SECONDS);
  return {
    async ensureOpen(clientId) {
      const state = await failures.get(clientId);
      if (state && state.consumedPoints > failures.points) throw tooMany(Messages.tooManyFailedSecrets, state);
    },
    async recordFailure(clientId) {
      await failures.consume(clientId).catch((error: unknown) => {
        if (!(error instanceof RateLimiterRes)) throw error;
      });
    },
    async clear(clientId) {
      await failures.delete(clientId);
    },
  };
}

// The lockout is used by the authenticate route, which only sees AppContext; one per pool keeps
// the insurance counters in one place (the real state is in the database either way).
const lockouts = new WeakMap<Knex, SecretLockout>();

export function secretLockout(app: { db: Knex; config: Config }): SecretLockout {
  let lockout = lockouts.get(app.db);
  if (!lockout) lockouts.set(app.db, (lockout = createSecretLockout(app.db, app.config)));
  return lockout;
}
