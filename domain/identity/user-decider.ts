import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';
import { isPermission, type Permission } from './access.ts';
import { normalizeEmail } from './email-decider.ts';
import type { UserEvent, UserRecoveryCodeUsed, UserTotpCodeUsed, UserTotpDisabled } from './events.ts';
import { requireName, sameSet } from './rules.ts';

export type UserCommand =
  | { type: 'CreateUser'; userId: string; organizationId: string; name: string; permissions: readonly string[]; at: Date }
  | { type: 'SetPermissions'; permissions: readonly string[]; at: Date }
  /** The address is claimed for this user first (email.ts); this only records it on the user. */
  | { type: 'SetEmail'; email: string; at: Date }
  /** The hash of a password that passed passwordProblem (password.ts). */
  | { type: 'SetPassword'; passwordHash: string; at: Date }
  /**
   * `step`: the RFC 6238 time step of the code that was checked against the secret
   * (application/identity/totp-commands.ts); `recoveryCodeHashes`: the hashes of the recovery codes shown once.
   */
  | { type: 'EnableTotp'; sealedSecret: string; step: number; recoveryCodeHashes: string[]; at: Date }
  | { type: 'UseSecondFactor'; proof: SecondFactor; at: Date }
  | { type: 'RenewRecoveryCodes'; proof: SecondFactor; recoveryCodeHashes: string[]; at: Date }
  | { type: 'DisableTotp'; proof: SecondFactor; at: Date };

/** What the user typed as a second factor: a TOTP code (its time step) or a recovery code (its hash). */
export type SecondFactor = { step: number } | { recoveryCodeHash: string };

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
  /** The hashes of the recovery codes not used yet. */
  recoveryCodes: string[];
}

/** A code is accepted once: its step must come after the last one used. */
function freshStep(state: UserState, step: number): number {
  if (step <= state.totpStep) throw new DomainError('invalid', Messages.wrongTotpCode);
  return step;
}

/** The event that spends a second factor: a TOTP step, or a recovery code still unused (each is good once). */
function secondFactorUsed(state: UserState, proof: SecondFactor, at: Date): UserTotpCodeUsed | UserRecoveryCodeUsed {
  const base = { userId: state.userId!, organizationId: state.organizationId, usedAt: at.toISOString() };
  if ('step' in proof) return { type: 'UserTotpCodeUsed', data: { ...base, step: freshStep(state, proof.step) } };
  if (!state.recoveryCodes.includes(proof.recoveryCodeHash)) throw new DomainError('invalid', Messages.wrongTotpCode);
  return { type: 'UserRecoveryCodeUsed', data: { ...base, codeHash: proof.recoveryCodeHash } };
}

function requireTotpOn(state: UserState): void {
  if (!state.userId) throw new DomainError('not_found', Messages.recordNotFound);
  if (!state.totpSecret) throw new DomainError('invalid', Messages.totpNotOn);
}

function permissionsOf(names: readonly string[]): Permission[] {
  if (!names.every(isPermission)) throw new DomainError('invalid', Messages.unknownPermission);
  return [...new Set(names as readonly Permission[])];
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  initialState: () => ({ userId: null, organizationId: '', name: '', permissions: [], email: null, passwordHash: null, totpSecret: null, totpStep: 0, recoveryCodes: [] }),

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
        // Enabled before recovery codes existed: none.
        return { ...state, totpSecret: event.data.sealedSecret, totpStep: event.data.step, recoveryCodes: event.data.recoveryCodeHashes ?? [] };
      case 'UserTotpCodeUsed':
        return { ...state, totpStep: event.data.step };
      case 'UserRecoveryCodeUsed':
        return { ...state, recoveryCodes: state.recoveryCodes.filter((hash) => hash !== event.data.codeHash) };
      case 'UserRecoveryCodesRenewed':
        return { ...state, recoveryCodes: event.data.recoveryCodeHashes };
      case 'UserTotpDisabled':
        return { ...state, totpSecret: null, totpStep: event.data.step, recoveryCodes: [] };
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
        const data = {
          userId: state.userId,
          organizationId: state.organizationId,
          sealedSecret: command.sealedSecret,
          step: freshStep(state, command.step),
          recoveryCodeHashes: command.recoveryCodeHashes,
          enabledAt: command.at.toISOString(),
        };
        return [{ type: 'UserTotpEnabled', data }];
      }
      case 'UseSecondFactor':
        requireTotpOn(state);
        return [secondFactorUsed(state, command.proof, command.at)];
      case 'RenewRecoveryCodes': {
        requireTotpOn(state);
        const data = { userId: state.userId!, organizationId: state.organizationId, recoveryCodeHashes: command.recoveryCodeHashes, renewedAt: command.at.toISOString() };
        return [secondFactorUsed(state, command.proof, command.at), { type: 'UserRecoveryCodesRenewed', data }];
      }
      case 'DisableTotp': {
        requireTotpOn(state);
        const used = secondFactorUsed(state, command.proof, command.at);
        const step = used.type === 'UserTotpCodeUsed' ? used.data.step : state.totpStep;
        // A TOTP code's step is recorded by the event that turns TOTP off; a recovery code is spent first.
        const disabled: UserTotpDisabled = { type: 'UserTotpDisabled', data: { userId: state.userId!, organizationId: state.organizationId, step, disabledAt: command.at.toISOString() } };
        return used.type === 'UserTotpCodeUsed' ? [disabled] : [used, disabled];
      }
    }
  },
};
