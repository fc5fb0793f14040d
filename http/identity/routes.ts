import { authenticate, logout } from '../../application/identity/session-commands.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { findSessionDetail } from '../../projections/identity/queries.ts';
import { Gates } from '../gates.ts';
import { route, type RouteTable } from '../route.ts';
import { SessionDetailSchema, SessionSchema } from './schemas.ts';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export const identityRoutes: RouteTable = {
  module: 'identity',
  description: 'Authentication with client credentials, sessions',
  routes: [
    route({
      method: 'post',
      path: '/auth/authenticate',
      summary: 'Exchange a client id and secret for an access token',
      description:
        'Headers service-client-id and service-client-secret, no body. 400 `ClientId inválido.` for an unknown or revoked client id; ' +
        "401 `ClientSecret inválido.` for a wrong secret; 429 with Retry-After while the client id is locked for the caller's address after repeated wrong secrets, or the address after many failures.",
      auth: 'client-credentials',
      responses: { 200: SessionSchema },
      errors: [400, 401, 429],
      // Headers are read as given: a missing one is simply an unknown client id or a wrong secret.
      handle: ({ app, ctx }) => authenticate(app, ctx.get('service-client-id') || undefined, ctx.get('service-client-secret') || undefined, ctx.ip),
    }),
    route({
      method: 'post',
      path: '/auth/logout',
      summary: "End the caller's session",
      description: 'The token that calls it is refused from the reply on, in every process. Replies with the Session, loggedOutAt set and no accessToken.',
      gate: Gates.authenticated,
      responses: { 200: SessionSchema },
      handle: ({ app, principal }) => logout(app, principal),
    }),
    route({
      method: 'get',
      path: '/auth/session',
      summary: 'The current session, with the organization, user, modules and permissions it acts as',
      gate: Gates.authenticated,
      responses: { 200: SessionDetailSchema },
      async handle({ app, principal }) {
        const detail = await findSessionDetail(app.db, principal.sessionId);
        if (!detail) throw new DomainError('unauthenticated', Messages.invalidToken);
        return {
          ...detail,
          createdAt: iso(detail.createdAt),
          updatedAt: iso(detail.updatedAt),
          expiresAt: iso(detail.expiresAt),
          loggedOutAt: iso(detail.loggedOutAt),
        };
      },
    }),
  ],
};
