import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';
import type { SessionEvent } from './events.ts';

export type SessionCommand =
  /** credentialId null: a console session, signed in with e-mail and password. */
  { type: 'StartSession'; sessionId: string; userId: string; organizationId: string; credentialId: string | null; at: Date; ttlSeconds: number } | { type: 'LogOut'; at: Date };

export interface SessionState {
  sessionId: string | null;
  userId: string;
  organizationId: string;
  credentialId: string | null;
  issuedAt: string;
  expiresAt: string;
  loggedOutAt: string | null;
  updatedAt: string;
}

export const sessionDecider: Decider<SessionCommand, SessionEvent, SessionState> = {
  initialState: () => ({ sessionId: null, userId: '', organizationId: '', credentialId: '', issuedAt: '', expiresAt: '', loggedOutAt: null, updatedAt: '' }),

  evolve(state, event) {
    switch (event.type) {
      case 'SessionStarted':
        return { ...event.data, loggedOutAt: null, updatedAt: event.data.issuedAt };
      case 'SessionLoggedOut':
        return { ...state, loggedOutAt: event.data.loggedOutAt, updatedAt: event.data.loggedOutAt };
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'StartSession': {
        if (state.sessionId) throw new DomainError('conflict', Messages.alreadyExists);
        const { sessionId, userId, organizationId, credentialId } = command;
        // Whole seconds: the token's iat/exp are seconds, and the reply must match the token.
        const issued = Math.floor(command.at.getTime() / 1000) * 1000;
        const data = {
          sessionId,
          userId,
          organizationId,
          credentialId,
          issuedAt: new Date(issued).toISOString(),
          expiresAt: new Date(issued + command.ttlSeconds * 1000).toISOString(),
        };
        return [{ type: 'SessionStarted', data }];
      }
      case 'LogOut': {
        if (!state.sessionId) throw new DomainError('unauthenticated', Messages.invalidToken);
        if (state.loggedOutAt) return [];
        return [{ type: 'SessionLoggedOut', data: { sessionId: state.sessionId, organizationId: state.organizationId, loggedOutAt: command.at.toISOString() } }];
      }
    }
  },
};
