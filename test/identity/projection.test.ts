import * as assert from 'uvu/assert';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { DomainEvent } from '../../domain/shared/decider.ts';
import { identityProjection } from '../../projections/identity/projection.ts';
import { findActiveSession, findCredentialByClientId, findSessionDetail } from '../../projections/identity/queries.ts';
import { databaseSuite, type TestDatabase } from '../support/db.ts';

const ORG = 'a'.repeat(24);
const USER = 'b'.repeat(24);
const CRED = 'c'.repeat(24);
const SESSION = 'd'.repeat(24);
const issuedAt = '2026-01-01T00:00:00.000Z';
const expiresAt = '2026-01-02T00:00:00.000Z';
const during = new Date('2026-01-01T12:00:00.000Z');

const test = databaseSuite('identity: read tables and the caller query');

let revision = 0n;
async function project(ctx: { db: TestDatabase }, ...events: DomainEvent[]) {
  const recorded = events.map((e) => ({ ...e, revision: revision++ }) as unknown as RecordedEvent);
  await ctx.db.knex.transaction((trx) => identityProjection.handle(recorded, trx));
}

test('a tenant, its credential and a session make a live caller', async (ctx) => {
  await project(
    ctx,
    { type: 'OrganizationCreated', data: { organizationId: ORG, name: 'Acme', modules: ['reports'], flags: {}, createdAt: issuedAt } },
    { type: 'UserCreated', data: { userId: USER, organizationId: ORG, name: 'Ana', permissions: ['can-generate-report'], createdAt: issuedAt } },
    { type: 'CredentialIssued', data: { credentialId: CRED, clientId: 'cli_1', userId: USER, organizationId: ORG, secretHash: 'h', issuedAt } },
    { type: 'SessionStarted', data: { sessionId: SESSION, userId: USER, organizationId: ORG, credentialId: CRED, issuedAt, expiresAt } },
  );
  assert.equal(await findActiveSession(ctx.db.knex, SESSION, during), {
    sessionId: SESSION,
    userId: USER,
    organizationId: ORG,
    credentialId: CRED,
    userName: 'Ana',
    modules: ['reports'],
    permissions: ['can-generate-report'],
  });
  assert.is((await findCredentialByClientId(ctx.db.knex, 'cli_1'))?.id, CRED);
});

test('module, permission and flag changes show at once', async (ctx) => {
  await project(
    ctx,
    { type: 'OrganizationModulesChanged', data: { organizationId: ORG, modules: ['proposals'], changedAt: issuedAt } },
    { type: 'OrganizationFlagsChanged', data: { organizationId: ORG, flags: { beta: true }, changedAt: issuedAt } },
    { type: 'UserPermissionsChanged', data: { userId: USER, organizationId: ORG, permissions: ['can-manage-settings'], changedAt: issuedAt } },
  );
  const caller = await findActiveSession(ctx.db.knex, SESSION, during);
  assert.equal(caller?.modules, ['proposals']);
  assert.equal(caller?.permissions, ['can-manage-settings']);
  assert.equal((await findSessionDetail(ctx.db.knex, SESSION))?.organization.flags, { beta: true });
});

test('an expired session is no caller', async (ctx) => {
  assert.is(await findActiveSession(ctx.db.knex, SESSION, new Date(expiresAt)), undefined);
});

test('logout, then revocation, end the caller', async (ctx) => {
  const other = 'e'.repeat(24);
  await project(ctx, { type: 'SessionStarted', data: { sessionId: other, userId: USER, organizationId: ORG, credentialId: CRED, issuedAt, expiresAt } });
  await project(ctx, { type: 'SessionLoggedOut', data: { sessionId: SESSION, organizationId: ORG, loggedOutAt: issuedAt } });
  assert.is(await findActiveSession(ctx.db.knex, SESSION, during), undefined);
  assert.ok(await findActiveSession(ctx.db.knex, other, during));
  await project(ctx, { type: 'CredentialRevoked', data: { credentialId: CRED, clientId: 'cli_1', organizationId: ORG, revokedAt: issuedAt } });
  assert.is(await findActiveSession(ctx.db.knex, other, during), undefined);
  assert.ok((await findCredentialByClientId(ctx.db.knex, 'cli_1'))?.revokedAt);
});

test.run();
