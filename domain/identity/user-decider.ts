import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';
import { isPermission, type Permission } from './access.ts';
import { normalizeEmail } from './email-decider.ts';
import type { UserEvent } from './events.ts';
import { requireName, sameSet } from './rules.ts';

export type UserCommand =
  | { type: 'CreateUser'; userId: string; organizationId: string; name: string; permissions: readonly string[]; at: Date }
  | { type: 'SetPermissions'; permissions: readonly string[]; at: Date }
  /** The address is claimed for this user first (email.ts); this only records it on the user. */
  | { type: 'SetEmail'; email: string; at: Date }
  /** The hash of a password that passed passwordProblem (password.ts). */
  | { type: 'SetPassword'; passwordHash: string; at: Date }
  /** `step`: the RFC 6238 time step of the code that was checked against the secret (application/identity/totp.ts). */
  | { type: 'EnableTotp'; sealedSecret: string; step: number; at: Date }
  | { type: 'UseTotpCode'; step: number; at: Date }
  | { type: 'DisableTotp'; step: number; at: Date };

export interface UserState {
  userId: string | null;
  organizationId: string;
  name: string;
  permissions: Permission[];
  email: string | null;
  passwordHash: string | null;
  /** The TOTP secret, sealed; null while the second factor is off. */
  totpSecret: string | null;
  /** The time step of the last TOTP code accepted (0: none): a code is good once. */
  totpStep: number;
}

/** A code is accepted once: its step must come after the last one used. */
function freshStep(state: UserState, step: number): number {
  if (step <= state.totpStep) throw new DomainError('invalid', Messages.wrongTotpCode);
  return step;
}

function permissionsOf(names: readonly string[]): Permission[] {
  if (!names.every(isPermission)) throw new DomainError('invalid', Messages.unknownPermission);
  return [...new Set(names as readonly Permission[])];
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  initialState: () => ({ userId: null, organizationId: '', name: '', permissions: [], email: null, passwordHash: null, totpSecret: null, totpStep: 0 }),

  evolve(state, event) {
    switch (event.type) {
      case 'UserCreated':
        return { ...userDecider.initialState(), userId: event.data.userId, organizationId: event.data.organizationId, name: event.data.name, permissions: event.data.permissions };
      case 'UserPermissionsChanged':
        return { ...state, permissions: event.data.permissions };
      case 'UserEmailChanged':
        return { ...state, email: event.data.email };
      case 'UserPasswordChanged':
        return { ...state, passwordHash: event.data.passwordHash };
      case 'UserTotpEnabled':
        return { ...state, totpSecret: event.data.sealedSecret, totpStep: event.data.step };
      case 'UserTotpCodeUsed':
        return { ...state, totpStep: event.data.step };
      case 'UserTotpDisabled':
        return { ...state, totpSecret: null, totpStep: event.data.step };
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'CreateUser': {
        if (state.userId) throw new DomainError('conflict', Messages.alreadyExists);
        const data = {
          userId: command.userId,
          organizationId: command.organizationId,
          name: requireName(command.name),
          permissions: permissionsOf(command.permissions),
          createdAt: command.at.toISOString(),
        };
        return [{ type: 'UserCreated', data }];
      }
      case 'SetPermissions': {
        if (!state.userId) throw new DomainError('not_found', Messages.recordNotFound);
        const permissions = permissionsOf(command.permissions);
        if (sameSet(permissions, state.permissions)) return [];
        const data = { userId: state.userId, organizationId: state.organizationId, permissions, changedAt: command.at.toISOString() };
        return [{ type: 'UserPermissionsChanged', data }];
      }
      case 'SetEmail': {
        if (!state.userId) throw new DomainError('not_found', Messages.recordNotFound);
        const email = normalizeEmail(command.email);
        if (email === state.email) return [];
        return [{ type: 'UserEmailChanged', data: { userId: state.userId, organizationId: state.organizationId, email, changedAt: command.at.toISOString() } }];
      }
      case 'SetPassword': {
        if (!state.userId) throw new DomainError('not_found', Messages.recordNotFound);
        // A login needs an address to sign in with: a password alone could never be used.
        if (!state.email) throw new DomainError('invalid', Messages.passwordNeedsEmail);
        return [{ type: 'UserPasswordChanged', data: { userId: state.userId, organizationId: state.organizationId, passwordHash: command.passwordHash, changedAt: command.at.toISOString() } }];
      }
      case 'EnableTotp': {
        if (!state.userId) throw new DomainError('not_found', Messages.recordNotFound);
        if (state.totpSecret) throw new DomainError('conflict', Messages.totpAlreadyOn);
        const data = { userId: state.userId, organizationId: state.organizationId, sealedSecret: command.sealedSecret, step: freshStep(state, command.step), enabledAt: command.at.toISOString() };
        return [{ type: 'UserTotpEnabled', data }];
      }
      case 'UseTotpCode':
      case 'DisableTotp': {
        if (!state.userId) throw new DomainError('not_found', Messages.recordNotFound);
        if (!state.totpSecret) throw new DomainError('invalid', Messages.totpNotOn);
        const base = { userId: state.userId, organizationId: state.organizationId, step: freshStep(state, command.step) };
        const at = command.at.toISOString();
        return command.type === 'UseTotpCode' ? [{ type: 'UserTotpCodeUsed', data: { ...base, usedAt: at } }] : [{ type: 'UserTotpDisabled', data: { ...base, disabledAt: at } }];
      }
    }
  },
};
