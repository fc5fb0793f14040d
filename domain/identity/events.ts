import type { DomainEvent } from '../shared/decider.ts';
import type { Module, Permission } from './access.ts';

/** Flags are organization settings that are not contracted modules (ours: the spec names none yet). */
export type OrganizationFlags = Record<string, boolean>;

export type OrganizationCreated = DomainEvent<
  'OrganizationCreated',
  { organizationId: string; name: string; modules: Module[]; flags: OrganizationFlags; createdAt: string }
>;
export type OrganizationModulesChanged = DomainEvent<
  'OrganizationModulesChanged',
  { organizationId: string; modules: Module[]; changedAt: string }
>;
export type OrganizationFlagsChanged = DomainEvent<
  'OrganizationFlagsChanged',
  { organizationId: string; flags: OrganizationFlags; changedAt: string }
>;
export type OrganizationEvent = OrganizationCreated | OrganizationModulesChanged | OrganizationFlagsChanged;

export type UserCreated = DomainEvent<
  'UserCreated',
  { userId: string; organizationId: string; name: string; permissions: Permission[]; createdAt: string }
>;
export type UserPermissionsChanged = DomainEvent<
  'UserPermissionsChanged',
  { userId: string; organizationId: string; permissions: Permission[]; changedAt: string }
>;
export type UserEvent = UserCreated | UserPermissionsChanged;

export type CredentialIssued = DomainEvent<
  'CredentialIssued',
  { credentialId: string; clientId: string; userId: string; organizationId: string; secretHash: string; issuedAt: string }
>;
export type CredentialRevoked = DomainEvent<
  'CredentialRevoked',
  { credentialId: string; clientId: string; organizationId: string; revokedAt: string }
>;
export type CredentialEvent = CredentialIssued | CredentialRevoked;

export type SessionStarted = DomainEvent<
  'SessionStarted',
  { sessionId: string; userId: string; organizationId: string; credentialId: string; issuedAt: string; expiresAt: string }
>;
export type SessionLoggedOut = DomainEvent<'SessionLoggedOut', { sessionId: string; organizationId: string; loggedOutAt: string }>;
export type SessionEvent = SessionStarted | SessionLoggedOut;

export const identityStreams = {
  organization: (id: string) => `organization-${id}`,
  user: (id: string) => `user-${id}`,
  credential: (id: string) => `credential-${id}`,
  session: (id: string) => `session-${id}`,
};
