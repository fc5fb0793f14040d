import * as assert from 'uvu/assert';
import { identityProjection } from '../../projections/identity/projection.ts';
import { findActiveSession, findCredentialByClientId, findSessionDetail } from '../../projections/identity/queries.ts';
import { databaseSuite, type TestDatabase } from '../support/db.ts';
import { projectionSpec } from '../support/projection.ts';

const ORG = 'a'.repeat(24);
const USER = 'b'.repeat(24);
const CRED = 'c'.repeat(24);
const SESSION = 'd'.repeat(24);
const issuedAt = '2026-01-01T00:00:00.000Z';
const expiresAt = '2026-01-02T00:00:00.000Z';
const during = new Date('2026-01-01T12:00:00.000Z');

const test = databaseSuite('identity: read tables and the caller query');

let database: TestDatabase;
test.before.each((ctx) => void (database = ctx.db));
// The suite's database is shared: each test's events add to what the tests before it projected.
const spec = projectionSpec(identityProjection, () => database.knex);

test('a tenant, its credential and a session make a live caller', async () => {
  const then = spec.when(
    { type: 'OrganizationCreated', data: { organizationId: ORG, name: 'Acme', modules: ['reports'], flags: {}, createdAt: issuedAt } },
    { type: 'UserCreated', data: { userId: USER, organizationId: ORG, name: 'Ana', permissions: ['can-generate-report'], createdAt: issuedAt } },
    { type: 'CredentialIssued', data: { credentialId: CRED, clientId: 'cli_1', userId: USER, organizationId: ORG, secretHash: 'h', issuedAt } },
    { type: 'SessionStarted', data: { sessionId: SESSION, userId: USER, organizationId: ORG, credentialId: CRED, issuedAt, expiresAt } },
  );
  await then.thenRead((db) => findActiveSession(db, SESSION, during), {
    sessionId: SESSION,
    userId: USER,
    organizationId: ORG,
    credentialId: CRED,
    userName: 'Ana',
    modules: ['reports'],
    permissions: ['can-generate-report'],
  });
  await then.thenRead(async (db) => (await findCredentialByClientId(db, 'cli_1'))?.id, CRED);
});

test('module, permission and flag changes show at once', async () => {
  const then = spec.when(
    { type: 'OrganizationModulesChanged', data: { organizationId: ORG, modules: ['proposals'], changedAt: issuedAt } },
    { type: 'OrganizationFlagsChanged', data: { organizationId: ORG, flags: { beta: true }, changedAt: issuedAt } },
    { type: 'UserPermissionsChanged', data: { userId: USER, organizationId: ORG, permissions: ['can-manage-settings'], changedAt: issuedAt } },
  );
  await then.thenRead(async (db) => (await findActiveSession(db, SESSION, during))?.modules, ['proposals']);
  await then.thenRead(async (db) => (await findActiveSession(db, SESSION, during))?.permissions, ['can-manage-settings']);
  await then.thenRead(async (db) => (await findSessionDetail(db, SESSION))?.organization.flags, { beta: true });
});

test('an expired session is no caller', async (ctx) => {
  assert.is(await findActiveSession(ctx.db.knex, SESSION, new Date(expiresAt)), undefined);
});

test('logout, then revocation, end the caller', async () => {
  const other = 'e'.repeat(24);
  const otherSession = { type: 'SessionStarted', data: { sessionId: other, userId: USER, organizationId: ORG, credentialId: CRED, issuedAt, expiresAt } };
  const loggedOut = spec.given(otherSession).when({ type: 'SessionLoggedOut', data: { sessionId: SESSION, organizationId: ORG, loggedOutAt: issuedAt } });
  await loggedOut.thenRead((db) => findActiveSession(db, SESSION, during), undefined);
  await loggedOut.thenRead(async (db) => (await findActiveSession(db, other, during))?.sessionId, other);
  const revoked = spec.when({ type: 'CredentialRevoked', data: { credentialId: CRED, clientId: 'cli_1', organizationId: ORG, revokedAt: issuedAt } });
  await revoked.thenRead((db) => findActiveSession(db, other, during), undefined);
  await revoked.thenRead(async (db) => Boolean((await findCredentialByClientId(db, 'cli_1'))?.revokedAt), true);
});

test.run();
