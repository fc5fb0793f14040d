import type { Knex } from 'knex';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type {
  CredentialEvent,
  OrganizationEvent,
  SessionEvent,
  UserEvent,
  UserRecoveryCodesRenewed,
  UserRecoveryCodeUsed,
  UserTotpCodeUsed,
  UserTotpDisabled,
  UserTotpEnabled,
} from '../../domain/identity/events.ts';
import type { Projection } from '../../platform/projections/projection.ts';

/** One read table folded from one aggregate's events. */
interface TablePart<E extends { type: string; data: object }> {
  table: string;
  eventTypes: readonly E['type'][];
  apply(event: E, trx: Knex.Transaction): Promise<unknown>;
}

const organizations: TablePart<OrganizationEvent> = {
  table: 'identity_organizations',
  eventTypes: ['OrganizationCreated', 'OrganizationModulesChanged', 'OrganizationFlagsChanged'],
  apply(event, trx) {
    const table = trx('identity_organizations');
    switch (event.type) {
      case 'OrganizationCreated': {
        const { organizationId, name, modules, flags, createdAt } = event.data;
        const row = { id: organizationId, name, modules, flags: JSON.stringify(flags), created_at: createdAt, updated_at: createdAt };
        return table.insert(row).onConflict('id').merge();
      }
      case 'OrganizationModulesChanged':
        return table.where({ id: event.data.organizationId }).update({ modules: event.data.modules, updated_at: event.data.changedAt });
      case 'OrganizationFlagsChanged':
        return table.where({ id: event.data.organizationId }).update({ flags: JSON.stringify(event.data.flags), updated_at: event.data.changedAt });
    }
  },
};

/** The TOTP events stay on the user's stream only (the sign-in reads it there): no table holds the sealed secret or the recovery codes' hashes. */
const users: TablePart<Exclude<UserEvent, UserTotpEnabled | UserTotpCodeUsed | UserRecoveryCodeUsed | UserRecoveryCodesRenewed | UserTotpDisabled>> = {
  table: 'identity_users',
  eventTypes: ['UserCreated', 'UserPermissionsChanged', 'UserEmailChanged', 'UserPasswordChanged'],
  apply(event, trx) {
    const table = trx('identity_users');
    switch (event.type) {
      case 'UserCreated': {
        const { userId, organizationId, name, permissions, createdAt } = event.data;
        const row = { id: userId, organization_id: organizationId, name, permissions, created_at: createdAt, updated_at: createdAt };
        return table.insert(row).onConflict('id').merge();
      }
      case 'UserPermissionsChanged':
        return table.where({ id: event.data.userId }).update({ permissions: event.data.permissions, updated_at: event.data.changedAt });
      case 'UserEmailChanged':
        return table.where({ id: event.data.userId }).update({ email: event.data.email, updated_at: event.data.changedAt });
      case 'UserPasswordChanged':
        return table.where({ id: event.data.userId }).update({ password_hash: event.data.passwordHash, updated_at: event.data.changedAt });
    }
  },
};

const credentials: TablePart<CredentialEvent> = {
  table: 'identity_credentials',
  eventTypes: ['CredentialIssued', 'CredentialRevoked'],
  apply(event, trx) {
    const table = trx('identity_credentials');
    switch (event.type) {
      case 'CredentialIssued': {
        const { credentialId, clientId, userId, organizationId, secretHash, issuedAt } = event.data;
        const row = { id: credentialId, client_id: clientId, user_id: userId, organization_id: organizationId, secret_hash: secretHash, created_at: issuedAt };
        return table.insert(row).onConflict('id').merge();
      }
      case 'CredentialRevoked':
        return table.where({ id: event.data.credentialId }).update({ revoked_at: event.data.revokedAt });
    }
  },
};

const sessions: TablePart<SessionEvent> = {
  table: 'identity_sessions',
  eventTypes: ['SessionStarted', 'SessionLoggedOut'],
  apply(event, trx) {
    const table = trx('identity_sessions');
    switch (event.type) {
      case 'SessionStarted': {
        const { sessionId, userId, organizationId, credentialId, issuedAt, expiresAt } = event.data;
        const row = {
          id: sessionId,
          user_id: userId,
          organization_id: organizationId,
          credential_id: credentialId,
          created_at: issuedAt,
          expires_at: expiresAt,
          updated_at: issuedAt,
        };
        return table.insert(row).onConflict('id').merge();
      }
      case 'SessionLoggedOut':
        return table.where({ id: event.data.sessionId }).update({ logged_out_at: event.data.loggedOutAt, updated_at: event.data.loggedOutAt });
    }
  },
};

export const IDENTITY_PROJECTION = 'identity';

const parts = [organizations, users, credentials, sessions] as unknown as TablePart<{ type: string; data: object }>[];
const partOf = new Map(parts.flatMap((part) => part.eventTypes.map((type) => [type, part] as const)));

/**
 * One projection for the four tables: each request reads its caller from all of them in one
 * join, so they must move together (a session is never visible before its credential), and one
 * subscription costs the runner less than four.
 */
export const identityProjection: Projection = {
  name: IDENTITY_PROJECTION,
  eventTypes: [...partOf.keys()],
  tables: parts.map((part) => part.table),
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
    for (const event of events) await partOf.get(event.type)?.apply({ type: event.type, data: event.data }, trx);
  },
};
