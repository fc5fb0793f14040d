import type { AppContext, Authenticator, RequestLimiter } from '../context.ts';
import { createAuthenticator } from './authenticator.ts';
import { createRequestLimiter } from './limits.ts';
import { signingKeys } from './session-commands.ts';

export function createIdentityServices(base: Omit<AppContext, 'authenticator' | 'limiter'>): { authenticator: Authenticator; limiter: RequestLimiter } {
  return {
    authenticator: createAuthenticator(base.db, base.clock, signingKeys(base.config)),
    limiter: createRequestLimiter(base.db, base.config),
  };
}
