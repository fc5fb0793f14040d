import type { Knex } from 'knex';
import { RateLimiterRes, type RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Config } from '../../config/index.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { sharedLimiter, tooMany } from './limits.ts';

// One limiter per pool, as the other shared counters (limits.ts): the state is in the database.
const publicLimits = new WeakMap<Knex, RateLimiterPostgres>();

/**
 * Count one request to a public route (no credential: a recipient link, an offer, a public form,
 * OAuth registration, console sign-in) from the client address; 429 with Retry-After past
 * PUBLIC_RATE_LIMIT_PER_ADDRESS in a window. The address is the one TRUST_PROXY lets through.
 */
export async function countPublicRequest(app: { db: Knex; config: Config }, address: string): Promise<void> {
  let limiter = publicLimits.get(app.db);
  if (!limiter) {
    limiter = sharedLimiter(app.db, 'public-address', app.config.PUBLIC_RATE_LIMIT_PER_ADDRESS, app.config.PUBLIC_RATE_LIMIT_WINDOW_SECONDS);
    publicLimits.set(app.db, limiter);
  }
  await limiter.consume(address).catch((refusal: unknown) => {
    throw refusal instanceof RateLimiterRes ? tooMany(Messages.rateLimited, refusal) : refusal;
  });
}
