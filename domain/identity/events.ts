import type { DomainEvent } from '../shared/decider.ts';
import type { Module, Permission } from './access.ts';

/** Flags are organization settings that are not contracted modules (ours: the spec names none yet). */
export type OrganizationFlags = Record<string, boolean>;

export type OrganizationCreated = DomainEvent<'OrganizationCreated', { organizationId: string; name: string; modules: Module[]; flags: OrganizationFlags; createdAt: string }>;
export type OrganizationModulesChanged = DomainEvent<'OrganizationModulesChanged', { organizationId: string; modules: Module[]; changedAt: string }>;
export type OrganizationFlagsChanged = DomainEvent<'OrganizationFlagsChanged', { organizationId: string; flags: OrganizationFlags; changedAt: string }>;
export type OrganizationEvent = OrganizationCreated | OrganizationModulesChanged | OrganizationFlagsChanged;

export type UserCreated = DomainEvent<'UserCreated', { userId: string; organizationId: string; name: string; permissions: Permission[]; createdAt: string }>;
export type UserPermissionsChanged = DomainEvent<'UserPermissionsChanged', { userId: string; organizationId: string; permissions: Permission[]; changedAt: string }>;
/** The address the platform writes to the user at (and, with a password, their login). Stored lower case. */
export type UserEmailChanged = DomainEvent<'UserEmailChanged', { userId: string; organizationId: string; email: string; changedAt: string }>;
/** The console login's password, as its scrypt hash (application/identity/secrets.ts); never the password. */
export type UserPasswordChanged = DomainEvent<'UserPasswordChanged', { userId: string; organizationId: string; passwordHash: string; changedAt: string }>;
/**
 * TOTP (RFC 6238) turned on: the secret sealed with SEALING_KEYS (application/identity/totp-commands.ts),
 * never in clear; `step` is the time step of the code that confirmed it; `recoveryCodeHashes` the
 * SHA-256 of each recovery code shown once (absent on events recorded before recovery codes).
 */
export type UserTotpEnabled = DomainEvent<'UserTotpEnabled', { userId: string; organizationId: string; sealedSecret: string; step: number; recoveryCodeHashes?: string[]; enabledAt: string }>;
/** A code of the user's TOTP was accepted: no code of this step or an earlier one is accepted again. */
export type UserTotpCodeUsed = DomainEvent<'UserTotpCodeUsed', { userId: string; organizationId: string; step: number; usedAt: string }>;
/** A recovery code stood in for a TOTP code: it is spent. */
export type UserRecoveryCodeUsed = DomainEvent<'UserRecoveryCodeUsed', { userId: string; organizationId: string; codeHash: string; usedAt: string }>;
/** New recovery codes replace every earlier one (used or not). */
export type UserRecoveryCodesRenewed = DomainEvent<'UserRecoveryCodesRenewed', { userId: string; organizationId: string; recoveryCodeHashes: string[]; renewedAt: string }>;
export type UserTotpDisabled = DomainEvent<'UserTotpDisabled', { userId: string; organizationId: string; step: number; disabledAt: string }>;
export type UserEvent =
  UserCreated | UserPermissionsChanged | UserEmailChanged | UserPasswordChanged | UserTotpEnabled | UserTotpCodeUsed | UserRecoveryCodeUsed | UserRecoveryCodesRenewed | UserTotpDisabled;

/**
 * `email-<hash>`: which user holds an e-mail address, so that no two users share one (the
 * address is a login). The stream is named by a keyed hash of the address (application/identity/email-claim-commands.ts), and holds no address.
 */
export type EmailClaimed = DomainEvent<'EmailClaimed', { userId: string; organizationId: string; claimedAt: string }>;
export type EmailReleased = DomainEvent<'EmailReleased', { userId: string; organizationId: string; releasedAt: string }>;
export type EmailClaimEvent = EmailClaimed | EmailReleased;

export type CredentialIssued = DomainEvent<'CredentialIssued', { credentialId: string; clientId: string; userId: string; organizationId: string; secretHash: string; issuedAt: string }>;
export type CredentialRevoked = DomainEvent<'CredentialRevoked', { credentialId: string; clientId: string; organizationId: string; revokedAt: string }>;
export type CredentialEvent = CredentialIssued | CredentialRevoked;

/** credentialId null: a console session, begun with the user's e-mail and password. */
export type SessionStarted = DomainEvent<'SessionStarted', { sessionId: string; userId: string; organizationId: string; credentialId: string | null; issuedAt: string; expiresAt: string }>;
export type SessionLoggedOut = DomainEvent<'SessionLoggedOut', { sessionId: string; organizationId: string; loggedOutAt: string }>;
export type SessionEvent = SessionStarted | SessionLoggedOut;

export const identityStreams = {
  organization: (id: string) => `organization-${id}`,
  user: (id: string) => `user-${id}`,
  credential: (id: string) => `credential-${id}`,
  session: (id: string) => `session-${id}`,
  /** hash: emailKey(address), see email.ts. */
  email: (hash: string) => `email-${hash}`,
};
