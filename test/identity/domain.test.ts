import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { credentialDecider } from '../../domain/identity/credential-decider.ts';
import { emailClaimDecider } from '../../domain/identity/email-decider.ts';
import { passwordProblem } from '../../domain/identity/password.ts';
import { organizationDecider } from '../../domain/identity/organization-decider.ts';
import { sessionDecider } from '../../domain/identity/session-decider.ts';
import { userDecider } from '../../domain/identity/user-decider.ts';
import { fold } from '../../domain/shared/decider.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { given } from '../support/decider.ts';

const at = new Date('2026-01-02T03:04:05.678Z');
const ORG = 'a'.repeat(24);
const USER = 'b'.repeat(24);
const CRED = 'c'.repeat(24);
const SESSION = 'd'.repeat(24);

const organization = suite('identity: organization');
const created = organizationDecider.decide({ type: 'CreateOrganization', organizationId: ORG, name: ' Acme ', modules: ['reports', 'proposals', 'reports'], at }, organizationDecider.initialState());

organization('created with its modules (deduplicated) and a trimmed name', () => {
  assert.equal(created, [{ type: 'OrganizationCreated', data: { organizationId: ORG, name: 'Acme', modules: ['reports', 'proposals'], flags: {}, createdAt: at.toISOString() } }]);
});
organization('an unknown module is refused', () => {
  given(organizationDecider, [])
    .when({ type: 'CreateOrganization', organizationId: ORG, name: 'x', modules: ['kycEnabled'], at })
    .thenError('invalid', Messages.unknownModule);
});
organization('a blank name is refused', () => {
  given(organizationDecider, []).when({ type: 'CreateOrganization', organizationId: ORG, name: '  ', modules: [], at }).thenError('invalid', Messages.nameRequired);
});
organization('created twice is a conflict', () => {
  given(organizationDecider, created).when({ type: 'CreateOrganization', organizationId: ORG, name: 'x', modules: [], at }).thenError('conflict', Messages.alreadyExists);
});
organization('modules change as a set; the same set changes nothing', () => {
  assert.equal(
    given(organizationDecider, created)
      .when({ type: 'SetModules', modules: ['proposals', 'reports'], at })
      .decided(),
    [],
  );
  assert.equal(
    given(organizationDecider, created)
      .when({ type: 'SetModules', modules: ['kyc'], at })
      .decided(),
    [{ type: 'OrganizationModulesChanged', data: { organizationId: ORG, modules: ['kyc'], changedAt: at.toISOString() } }],
  );
});
organization('flags merge; an unchanged flag changes nothing', () => {
  const changed = given(organizationDecider, created)
    .when({ type: 'SetFlags', flags: { beta: true }, at })
    .decided();
  assert.equal(changed[0]!.data, { organizationId: ORG, flags: { beta: true }, changedAt: at.toISOString() });
  assert.equal(
    given(organizationDecider, [...created, ...changed])
      .when({ type: 'SetFlags', flags: { beta: true }, at })
      .decided(),
    [],
  );
});
organization('changing an organization that does not exist', () => {
  given(organizationDecider, []).when({ type: 'SetModules', modules: [], at }).thenError('not_found', Messages.recordNotFound);
});

const user = suite('identity: user');
const userCreated = userDecider.decide({ type: 'CreateUser', userId: USER, organizationId: ORG, name: 'Ana', permissions: ['can-generate-report'], at }, userDecider.initialState());

user('created in one organization with permissions', () => {
  assert.equal(userCreated[0]!.data, { userId: USER, organizationId: ORG, name: 'Ana', permissions: ['can-generate-report'], createdAt: at.toISOString() });
});
user('an unknown permission is refused', () => {
  given(userDecider, [])
    .when({ type: 'CreateUser', userId: USER, organizationId: ORG, name: 'Ana', permissions: ['admin'], at })
    .thenError('invalid', Messages.unknownPermission);
});
user('permission changes carry the organization', () => {
  assert.equal(
    given(userDecider, userCreated)
      .when({ type: 'SetPermissions', permissions: ['can-manage-settings'], at })
      .decided(),
    [{ type: 'UserPermissionsChanged', data: { userId: USER, organizationId: ORG, permissions: ['can-manage-settings'], changedAt: at.toISOString() } }],
  );
  assert.equal(
    given(userDecider, userCreated)
      .when({ type: 'SetPermissions', permissions: ['can-generate-report'], at })
      .decided(),
    [],
  );
});
user('an e-mail address is stored lower case; the same one again decides nothing; a malformed one is refused', () => {
  const changed = { type: 'UserEmailChanged' as const, data: { userId: USER, organizationId: ORG, email: 'ana@banco.com.br', changedAt: at.toISOString() } };
  given(userDecider, userCreated).when({ type: 'SetEmail', email: ' Ana@Banco.com.BR', at }).then([changed]);
  given(userDecider, [...userCreated, changed])
    .when({ type: 'SetEmail', email: 'ana@banco.com.br', at })
    .then([]);
  for (const email of ['ana', 'ana@banco', 'a b@banco.com', `${'a'.repeat(250)}@b.com`])
    given(userDecider, userCreated).when({ type: 'SetEmail', email, at }).thenError('invalid', Messages.invalidEmail);
  given(userDecider, []).when({ type: 'SetEmail', email: 'ana@banco.com.br', at }).thenError('not_found', Messages.recordNotFound);
});
user('a password (its hash) only for a user with an address to sign in with; its length is checked before hashing', () => {
  const withEmail = [...userCreated, { type: 'UserEmailChanged' as const, data: { userId: USER, organizationId: ORG, email: 'ana@banco.com.br', changedAt: at.toISOString() } }];
  given(userDecider, withEmail)
    .when({ type: 'SetPassword', passwordHash: 'scrypt$x', at })
    .then([{ type: 'UserPasswordChanged', data: { userId: USER, organizationId: ORG, passwordHash: 'scrypt$x', changedAt: at.toISOString() } }]);
  given(userDecider, userCreated).when({ type: 'SetPassword', passwordHash: 'scrypt$x', at }).thenError('invalid', Messages.passwordNeedsEmail);
  assert.equal(['123456789', '1234567890', 'ç'.repeat(128), 'ç'.repeat(129)].map(passwordProblem), [Messages.passwordLength, null, null, Messages.passwordLength]);
});

const emailClaim = suite('identity: e-mail claim');
const claimed = { type: 'EmailClaimed' as const, data: { userId: USER, organizationId: ORG, claimedAt: at.toISOString() } };

emailClaim('one holder: claimed again by the holder decides nothing, by another user is refused', () => {
  given(emailClaimDecider, []).when({ type: 'ClaimEmail', userId: USER, organizationId: ORG, at }).then([claimed]);
  given(emailClaimDecider, [claimed]).when({ type: 'ClaimEmail', userId: USER, organizationId: ORG, at }).then([]);
  given(emailClaimDecider, [claimed]).when({ type: 'ClaimEmail', userId: CRED, organizationId: ORG, at }).thenError('conflict', Messages.emailInUse);
});
emailClaim('released only by its holder, then free for anyone', () => {
  const released = { type: 'EmailReleased' as const, data: { userId: USER, organizationId: ORG, releasedAt: at.toISOString() } };
  given(emailClaimDecider, [claimed]).when({ type: 'ReleaseEmail', userId: CRED, at }).then([]);
  given(emailClaimDecider, [claimed]).when({ type: 'ReleaseEmail', userId: USER, at }).then([released]);
  given(emailClaimDecider, [claimed, released])
    .when({ type: 'ClaimEmail', userId: CRED, organizationId: ORG, at })
    .then([{ type: 'EmailClaimed', data: { userId: CRED, organizationId: ORG, claimedAt: at.toISOString() } }]);
});

const credential = suite('identity: credential');
const issued = credentialDecider.decide(
  { type: 'IssueCredential', credentialId: CRED, clientId: 'cli_x', userId: USER, organizationId: ORG, secretHash: 'scrypt$...', at },
  credentialDecider.initialState(),
);

credential('issued with the hash only', () => {
  assert.equal(issued[0]!.data, { credentialId: CRED, clientId: 'cli_x', userId: USER, organizationId: ORG, secretHash: 'scrypt$...', issuedAt: at.toISOString() });
});
credential('revoked once; revoking again changes nothing', () => {
  const revoked = given(credentialDecider, issued).when({ type: 'RevokeCredential', at }).decided();
  assert.equal(revoked, [{ type: 'CredentialRevoked', data: { credentialId: CRED, clientId: 'cli_x', organizationId: ORG, revokedAt: at.toISOString() } }]);
  assert.equal(
    given(credentialDecider, [...issued, ...revoked])
      .when({ type: 'RevokeCredential', at })
      .decided(),
    [],
  );
});
credential('revoking an unknown credential', () => {
  given(credentialDecider, []).when({ type: 'RevokeCredential', at }).thenError('not_found', Messages.recordNotFound);
});

const session = suite('identity: session');
const started = sessionDecider.decide({ type: 'StartSession', sessionId: SESSION, userId: USER, organizationId: ORG, credentialId: CRED, at, ttlSeconds: 86400 }, sessionDecider.initialState());

session('starts for 24 hours from the whole second it was issued', () => {
  assert.equal(started[0]!.data, {
    sessionId: SESSION,
    userId: USER,
    organizationId: ORG,
    credentialId: CRED,
    issuedAt: '2026-01-02T03:04:05.000Z',
    expiresAt: '2026-01-03T03:04:05.000Z',
  });
});
session('logs out once; a second logout changes nothing', () => {
  const later = new Date(at.getTime() + 60_000);
  const out = given(sessionDecider, started).when({ type: 'LogOut', at: later }).decided();
  assert.equal(out, [{ type: 'SessionLoggedOut', data: { sessionId: SESSION, organizationId: ORG, loggedOutAt: later.toISOString() } }]);
  const state = fold(sessionDecider, [...started, ...out]);
  assert.is(state.loggedOutAt, later.toISOString());
  assert.is(state.updatedAt, later.toISOString());
  assert.equal(
    given(sessionDecider, [...started, ...out])
      .when({ type: 'LogOut', at })
      .decided(),
    [],
  );
});
session('logging out a session that never started', () => {
  given(sessionDecider, []).when({ type: 'LogOut', at }).thenError('unauthenticated', Messages.invalidToken);
});

organization.run();
user.run();
emailClaim.run();
credential.run();
session.run();
