import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';
import type { CredentialEvent } from './events.ts';

/** The secret never reaches the domain: only its hash, computed by the application. */
export type CredentialCommand =
  { type: 'IssueCredential'; credentialId: string; clientId: string; userId: string; organizationId: string; secretHash: string; at: Date } | { type: 'RevokeCredential'; at: Date };

export interface CredentialState {
  credentialId: string | null;
  clientId: string;
  userId: string;
  organizationId: string;
  revokedAt: string | null;
}

export const credentialDecider: Decider<CredentialCommand, CredentialEvent, CredentialState> = {
  initialState: () => ({ credentialId: null, clientId: '', userId: '', organizationId: '', revokedAt: null }),

  evolve(state, event) {
    switch (event.type) {
      case 'CredentialIssued': {
        const { credentialId, clientId, userId, organizationId } = event.data;
        return { credentialId, clientId, userId, organizationId, revokedAt: null };
      }
      case 'CredentialRevoked':
        return { ...state, revokedAt: event.data.revokedAt };
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'IssueCredential': {
        if (state.credentialId) throw new DomainError('conflict', Messages.alreadyExists);
        const { credentialId, clientId, userId, organizationId, secretHash } = command;
        return [{ type: 'CredentialIssued', data: { credentialId, clientId, userId, organizationId, secretHash, issuedAt: command.at.toISOString() } }];
      }
      case 'RevokeCredential': {
        if (!state.credentialId) throw new DomainError('not_found', Messages.recordNotFound);
        // Revoking twice is not an error: the operator's intent already holds.
        if (state.revokedAt) return [];
        const data = { credentialId: state.credentialId, clientId: state.clientId, organizationId: state.organizationId, revokedAt: command.at.toISOString() };
        return [{ type: 'CredentialRevoked', data }];
      }
    }
  },
};
