import type { Knex } from 'knex';
import { isModule, isPermission, type Principal } from '../../domain/identity/access.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { findActiveSession } from '../../projections/identity/queries.ts';
import type { Authenticator } from '../context.ts';
import type { Clock } from '../../platform/ids.ts';
import { verifySessionToken, type TokenKeys } from './tokens.ts';

/**
 * A valid signature is not enough: the session must still be live in the read model (not
 * logged out, credential not revoked), which is what makes logout and revocation immediate.
 */
export function createAuthenticator(db: Knex, clock: Clock, signingKeys: TokenKeys): Authenticator {
  return {
    async verify(token) {
      const now = clock.now();
      const claims = verifySessionToken(signingKeys, token, now);
      const row = await findActiveSession(db, claims.sessionId, now);
      if (!row || row.userId !== claims.userId || row.organizationId !== claims.organizationId) {
        throw new DomainError('unauthenticated', Messages.invalidToken);
      }
      return {
        organizationId: row.organizationId,
        userId: row.userId,
        userName: row.userName,
        credentialId: row.credentialId,
        sessionId: row.sessionId,
        modules: new Set(row.modules.filter(isModule)),
        permissions: new Set(row.permissions.filter(isPermission)),
      } satisfies Principal;
    },
  };
}
