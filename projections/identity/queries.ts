import type { Module } from '../../domain/identity/access.ts';
import type { Knex } from 'knex';

export interface CredentialRow {
  id: string;
  clientId: string;
  userId: string;
  organizationId: string;
  secretHash: string;
  revokedAt: Date | null;
}

export async function findCredentialByClientId(db: Knex, clientId: string): Promise<CredentialRow | undefined> {
  return db('identity_credentials')
    .where({ client_id: clientId })
    .first({ id: 'id', clientId: 'client_id', userId: 'user_id', organizationId: 'organization_id', secretHash: 'secret_hash', revokedAt: 'revoked_at' });
}

/**
 * Notified (migrations.ts) when a row of the identity read model changes in a way that can end a
 * session or change what it may do: the payload is the session's id, or '' for anything wider.
 */
export const IDENTITY_CHANGED_CHANNEL = 'identity_changed';

export interface ActiveSessionRow {
  sessionId: string;
  userId: string;
  organizationId: string;
  credentialId: string | null;
  userName: string;
  modules: string[];
  permissions: string[];
}

/**
 * Everything a request needs to know about its caller, in one query on primary keys: the
 * session is live (not logged out, not expired), its credential not revoked, plus the
 * organization's modules and the user's permissions as they are now (not as when the token was
 * issued, so a change applies at once).
 */
export async function findActiveSession(db: Knex, sessionId: string, now: Date): Promise<ActiveSessionRow | undefined> {
  // A console session has no credential: the left join gives it a null revoked_at.
  return db('identity_sessions as s')
    .leftJoin('identity_credentials as c', 'c.id', 's.credential_id')
    .join('identity_users as u', 'u.id', 's.user_id')
    .join('identity_organizations as o', 'o.id', 's.organization_id')
    .where('s.id', sessionId)
    .whereNull('s.logged_out_at')
    .whereNull('c.revoked_at')
    .where('s.expires_at', '>', now)
    .first({
      sessionId: 's.id',
      userId: 's.user_id',
      organizationId: 's.organization_id',
      credentialId: 's.credential_id',
      userName: 'u.name',
      modules: 'o.modules',
      permissions: 'u.permissions',
    });
}

export interface SessionDetail {
  id: string;
  userId: string;
  organizationId: string;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  loggedOutAt: Date | null;
  organization: { id: string; name: string; modules: string[]; flags: Record<string, boolean> };
  user: { id: string; name: string; permissions: string[] };
  credential: { id: string; clientId: string };
}

export async function findSessionDetail(db: Knex, sessionId: string): Promise<SessionDetail | undefined> {
  const row = await db('identity_sessions as s')
    .join('identity_credentials as c', 'c.id', 's.credential_id')
    .join('identity_users as u', 'u.id', 's.user_id')
    .join('identity_organizations as o', 'o.id', 's.organization_id')
    .where('s.id', sessionId)
    .first('s.id', 's.user_id', 's.organization_id', 's.created_at', 's.updated_at', 's.expires_at', 's.logged_out_at', {
      org_name: 'o.name',
      modules: 'o.modules',
      flags: 'o.flags',
      user_name: 'u.name',
      permissions: 'u.permissions',
      credential_id: 'c.id',
      client_id: 'c.client_id',
    });
  if (!row) return undefined;
  return {
    id: row.id,
    userId: row.user_id,
    organizationId: row.organization_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at,
    loggedOutAt: row.logged_out_at,
    organization: { id: row.organization_id, name: row.org_name, modules: row.modules, flags: row.flags },
    user: { id: row.user_id, name: row.user_name, permissions: row.permissions },
    credential: { id: row.credential_id, clientId: row.client_id },
  };
}

/** An organization's name and modules as they are now (null: no such organization); for work done without a caller's token. */
export async function findOrganization(db: Knex, organizationId: string): Promise<{ name: string; modules: Module[] } | null> {
  const row = await db('identity_organizations').where({ id: organizationId }).first('name', 'modules');
  return row ? { name: row.name as string, modules: row.modules as Module[] } : null;
}

/** The organization's name as its customers read it (recipient page, messages, codes); null when unknown. */
export async function organizationName(db: Knex, organizationId: string): Promise<string | null> {
  return (await findOrganization(db, organizationId))?.name ?? null;
}

/** The user who signs in with this address (lower case, as stored), with their password hash. */
export async function findLogin(db: Knex, email: string): Promise<{ userId: string; organizationId: string; passwordHash: string | null } | null> {
  const row = await db('identity_users').where({ email }).first({ userId: 'id', organizationId: 'organization_id', passwordHash: 'password_hash' });
  return row ?? null;
}

/** A user's own credentials, newest first: what the console's API settings list. */
export async function credentialsOfUser(db: Knex, userId: string): Promise<Array<{ id: string; clientId: string; createdAt: Date; revokedAt: Date | null }>> {
  return db('identity_credentials')
    .where({ user_id: userId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select({ id: 'id', clientId: 'client_id', createdAt: 'created_at', revokedAt: 'revoked_at' });
}

/** The user's console sessions still open (not signed out, not expired). */
export async function liveConsoleSessionsOf(db: Knex, userId: string, now: Date): Promise<string[]> {
  return db('identity_sessions').where({ user_id: userId }).whereNull('credential_id').whereNull('logged_out_at').where('expires_at', '>', now).pluck('id');
}

/** A user with their permissions and their organization's modules as they are now (an MCP token names only the user). */
export async function findUserAccess(db: Knex, userId: string): Promise<{ userId: string; organizationId: string; userName: string; modules: string[]; permissions: string[] } | undefined> {
  return db('identity_users as u')
    .join('identity_organizations as o', 'o.id', 'u.organization_id')
    .where('u.id', userId)
    .first({ userId: 'u.id', organizationId: 'u.organization_id', userName: 'u.name', modules: 'o.modules', permissions: 'u.permissions' });
}
