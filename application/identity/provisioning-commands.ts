import { MODULES, PERMISSIONS, type Module, type Permission } from '../../domain/identity/access.ts';
import { keyringFor } from '../../config/index.ts';
import { credentialDecider } from '../../domain/identity/credential-decider.ts';
import { emailClaimDecider, normalizeEmail } from '../../domain/identity/email-decider.ts';
import { identityStreams, type OrganizationCreated, type UserCreated } from '../../domain/identity/events.ts';
import { organizationDecider, type OrganizationCommand } from '../../domain/identity/organization-decider.ts';
import { userDecider, type UserCommand } from '../../domain/identity/user-decider.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { IDENTITY_PROJECTION } from '../../projections/identity/projection.ts';
import { findCredentialByClientId } from '../../projections/identity/queries.ts';
import { handleCommand, loadState } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import type { Position } from '../../platform/eventstore/port.ts';
import { emailClaimName } from './email-claim-commands.ts';
import { hashSecret, newClientId, newClientSecret } from './secrets.ts';

export interface IssuedCredential {
  credentialId: string;
  clientId: string;
  /** Shown once: only its hash is kept. */
  clientSecret: string;
}

export interface NewTenant {
  name: string;
  userName?: string;
  /** Default: every module. */
  modules?: readonly string[];
  /** Default: every permission. */
  permissions?: readonly string[];
  /** The first user's e-mail address (the platform writes to it). */
  email?: string;
}

export interface ProvisionedTenant extends IssuedCredential {
  organizationId: string;
  userId: string;
  modules: Module[];
  permissions: Permission[];
  email: string | null;
}

async function appendCredential(app: AppContext, userId: string, organizationId: string): Promise<IssuedCredential & { position: Position | null }> {
  const credentialId = app.ids.objectId();
  const clientId = newClientId();
  const clientSecret = newClientSecret();
  const { position } = await handleCommand(app.store, identityStreams.credential(credentialId), credentialDecider, {
    type: 'IssueCredential',
    credentialId,
    clientId,
    userId,
    organizationId,
    secretHash: await hashSecret(clientSecret),
    at: app.clock.now(),
  });
  return { credentialId, clientId, clientSecret, position };
}

/**
 * An organization, its first user and that user's credential. Every command is decided on an
 * empty state before anything is appended, so a bad module or permission name leaves no
 * organization behind without its user. Returns once the identity read tables show the tenant.
 */
export async function provisionTenant(app: AppContext, input: NewTenant): Promise<ProvisionedTenant> {
  const at = app.clock.now();
  const organizationId = app.ids.objectId();
  const userId = app.ids.objectId();
  const createOrganization: OrganizationCommand = { type: 'CreateOrganization', organizationId, name: input.name, modules: input.modules ?? MODULES, at };
  const createUser: UserCommand = {
    type: 'CreateUser',
    userId,
    organizationId,
    name: input.userName ?? input.name,
    permissions: input.permissions ?? PERMISSIONS,
    at,
  };
  const [organization] = organizationDecider.decide(createOrganization, organizationDecider.initialState());
  const [user] = userDecider.decide(createUser, userDecider.initialState());
  const email = input.email === undefined ? null : normalizeEmail(input.email);
  // Claimed first: an address another user holds refuses the tenant before anything else is written.
  if (email) await claimEmail(app, email, { userId, organizationId });

  await handleCommand(app.store, identityStreams.organization(organizationId), organizationDecider, createOrganization);
  await handleCommand(app.store, identityStreams.user(userId), userDecider, createUser);
  if (email) await handleCommand(app.store, identityStreams.user(userId), userDecider, { type: 'SetEmail', email, at });
  const { position, ...credential } = await appendCredential(app, userId, organizationId);
  await app.readYourWrites([IDENTITY_PROJECTION], position);
  return {
    organizationId,
    userId,
    ...credential,
    modules: (organization as OrganizationCreated).data.modules,
    permissions: (user as UserCreated).data.permissions,
    email,
  };
}

const emailClaimStream = (app: Pick<AppContext, 'config'>, email: string) => identityStreams.email(emailClaimName(keyringFor(app.config, 'pepper'), email));

function claimEmail(app: AppContext, email: string, holder: { userId: string; organizationId: string }) {
  return handleCommand(app.store, emailClaimStream(app, email), emailClaimDecider, { type: 'ClaimEmail', ...holder, at: app.clock.now() });
}

/**
 * Give a user an e-mail address, or change it: the new address is claimed before the user records
 * it and the old one released after, so two users never hold one address. A crash in between
 * leaves the new address claimed by the user who does not show it yet; setting it again finishes.
 */
export async function setUserEmail(app: AppContext, userId: string, address: string): Promise<{ userId: string; organizationId: string; email: string }> {
  const loaded = await loadState(app.store, identityStreams.user(userId), userDecider);
  const { state } = loaded;
  if (!state.userId) throw new DomainError('not_found', Messages.recordNotFound);
  const email = normalizeEmail(address);
  const holder = { userId, organizationId: state.organizationId };
  await claimEmail(app, email, holder);
  const { position } = await handleCommand(app.store, identityStreams.user(userId), userDecider, { type: 'SetEmail', email, at: app.clock.now() }, { loaded });
  if (state.email && state.email !== email) {
    await handleCommand(app.store, emailClaimStream(app, state.email), emailClaimDecider, { type: 'ReleaseEmail', userId, at: app.clock.now() });
  }
  await app.readYourWrites([IDENTITY_PROJECTION], position);
  return { ...holder, email };
}

/** Another credential for an existing user (rotation: issue a new one, then revoke the old). */
export async function issueCredential(app: AppContext, userId: string): Promise<IssuedCredential & { userId: string; organizationId: string }> {
  const { state } = await loadState(app.store, identityStreams.user(userId), userDecider);
  if (!state.userId) throw new DomainError('not_found', Messages.recordNotFound);
  const { position, ...credential } = await appendCredential(app, userId, state.organizationId);
  await app.readYourWrites([IDENTITY_PROJECTION], position);
  return { ...credential, userId, organizationId: state.organizationId };
}

/** Revoke by client id: its sessions stop working at once (the authenticator checks revocation). */
export async function revokeCredential(app: AppContext, clientId: string): Promise<{ credentialId: string; clientId: string; revokedAt: string }> {
  const found = await findCredentialByClientId(app.db, clientId);
  if (!found) throw new DomainError('not_found', Messages.invalidClientId);
  const { state, position } = await handleCommand(app.store, identityStreams.credential(found.id), credentialDecider, { type: 'RevokeCredential', at: app.clock.now() });
  await app.readYourWrites([IDENTITY_PROJECTION], position);
  // As endOtherSessions: this process must not wait for the table's notice to drop the sessions.
  app.authenticator.forget('');
  return { credentialId: found.id, clientId, revokedAt: state.revokedAt! };
}
