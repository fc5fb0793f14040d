import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { issueCredential, revokeCredential } from '../../application/identity/provisioning-commands.ts';
import { tokenSigningKey } from '../../application/identity/tokens.ts';
import { keyringFor } from '../../config/index.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { authenticateOverHttp, provisionTenant, type TestTenant } from '../support/identity.ts';
import { PATIENT_READ_YOUR_WRITES } from './patient.ts';
import { sleep } from '../support/wait.ts';

const LIMIT_PER_CREDENTIAL = 20;
const LIMIT_PER_ORGANIZATION = 30;
const FAILURES_BEFORE_LOCK = 3;
// The window opens at the first try, before its hash: long enough for three hashes on a loaded machine.
const LOCK_SECONDS = 5;

interface Ctx {
  app: TestApp;
}
const test = suite<Ctx>('identity: authentication over HTTP');

test.before(async (ctx) => {
  ctx.app = await startTestApp({
    ...PATIENT_READ_YOUR_WRITES,
    RATE_LIMIT_PER_CREDENTIAL: String(LIMIT_PER_CREDENTIAL),
    RATE_LIMIT_PER_ORGANIZATION: String(LIMIT_PER_ORGANIZATION),
    AUTH_FAILURES_BEFORE_LOCK: String(FAILURES_BEFORE_LOCK),
    AUTH_LOCK_SECONDS: String(LOCK_SECONDS),
  });
});
test.after(async (ctx) => {
  await ctx.app.stop();
});

const session = (app: TestApp, token?: string, headers?: Record<string, string>) => app.call('GET', '/auth/session', { token, headers });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function refused(reply: { status: number; body: unknown }, status: number, message: string) {
  assert.is(reply.status, status, JSON.stringify(reply.body));
  assert.equal(reply.body, { code: status, message });
}

test('authenticate answers the Session object, valid 24 hours', async ({ app }) => {
  const tenant = await provisionTenant(app);
  const reply = await authenticateOverHttp(app, tenant.clientId, tenant.clientSecret);
  assert.is(reply.status, 200);
  const body = reply.body;
  assert.equal(Object.keys(body), ['id', 'accessToken', 'expiresAt', 'expiresIn', 'userId', 'organizationId', 'loggedOutAt', 'createdAt', 'updatedAt']);
  assert.match(body.id, /^[0-9a-f]{24}$/);
  assert.is(body.userId, tenant.userId);
  assert.is(body.organizationId, tenant.organizationId);
  assert.is(body.loggedOutAt, null);
  assert.is(body.expiresIn, 86400);
  for (const field of ['expiresAt', 'createdAt', 'updatedAt']) assert.match(body[field], ISO);
  assert.is(Date.parse(body.expiresAt) - Date.parse(body.createdAt), 86_400_000);
  const header = JSON.parse(Buffer.from(body.accessToken.split('.')[0], 'base64url').toString());
  assert.is(header.alg, 'HS256');
  assert.is(header.kid, keyringFor(app.app.config, 'jwt').primary.kid);
});

test('the token works at once, and shows who the caller is', async ({ app }) => {
  const tenant = await provisionTenant(app, { modules: ['reports', 'kyc'], permissions: ['can-generate-report'] });
  const reply = await session(app, tenant.token);
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.is(reply.body.organization.id, tenant.organizationId);
  assert.equal(reply.body.organization.modules, ['reports', 'kyc']);
  assert.equal(reply.body.user.permissions, ['can-generate-report']);
  assert.is(reply.body.credential.clientId, tenant.clientId);
});

test('the bearer scheme name is case-insensitive', async ({ app }) => {
  const tenant = await provisionTenant(app);
  assert.is((await session(app, undefined, { authorization: `bearer ${tenant.token}` })).status, 200);
});

test('authenticate: unknown, missing or revoked client id is 400; wrong or missing secret is 401', async ({ app }) => {
  const tenant = await provisionTenant(app);
  refused(await authenticateOverHttp(app), 400, Messages.invalidClientId);
  refused(await authenticateOverHttp(app, 'cli_000000000000000000000000', tenant.clientSecret), 400, Messages.invalidClientId);
  refused(await authenticateOverHttp(app, tenant.clientId, 'wrong'), 401, Messages.invalidClientSecret);
  refused(await authenticateOverHttp(app, tenant.clientId), 401, Messages.invalidClientSecret);
  await revokeCredential(app.app, tenant.clientId);
  refused(await authenticateOverHttp(app, tenant.clientId, tenant.clientSecret), 400, Messages.invalidClientId);
});

// Every way a bearer token can be wrong answers the same 401, so a caller learns nothing from it.
test('401 for every bad token', async ({ app }) => {
  const tenant = await provisionTenant(app);
  const claims = jwt.decode(tenant.token) as jwt.JwtPayload;
  const { kid, secret } = keyringFor(app.app.config, 'jwt').primary;
  const key = tokenSigningKey(secret);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const unsigned = (payload: object) => [{ alg: 'none', typ: 'JWT' }, payload].map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.') + '.';
  const cases: Record<string, Record<string, string>> = {
    'no header': {},
    'not Bearer': { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
    'Bearer without token': { authorization: 'Bearer ' },
    garbage: { authorization: 'Bearer not-a-token' },
    'three garbage parts': { authorization: 'Bearer aaa.bbb.ccc' },
    'wrong signature': { authorization: `Bearer ${jwt.sign(claims, 'another-key-another-key-another-key')}` },
    'alg none': { authorization: `Bearer ${unsigned(claims)}` },
    'alg HS512 with the right key': { authorization: `Bearer ${jwt.sign(claims, key, { algorithm: 'HS512', keyid: kid })}` },
    'alg RS256': { authorization: `Bearer ${jwt.sign(claims, privateKey, { algorithm: 'RS256' })}` },
    'unknown session': { authorization: `Bearer ${jwt.sign({ ...claims, sid: '0'.repeat(24) }, key, { keyid: kid })}` },
    'session of another user': { authorization: `Bearer ${jwt.sign({ ...claims, sub: '0'.repeat(24) }, key, { keyid: kid })}` },
    'a kid no key has': { authorization: `Bearer ${jwt.sign(claims, key, { keyid: 'not-in-the-ring' })}` },
    'claims not ids': { authorization: `Bearer ${jwt.sign({ ...claims, sid: 'x' }, key, { keyid: kid })}` },
    // Each use has its own key derived from the ring's (HKDF): the ring's key itself signs nothing.
    'signed with the JWT_KEYS key itself': { authorization: `Bearer ${jwt.sign(claims, secret, { keyid: kid })}` },
  };
  for (const [name, headers] of Object.entries(cases)) {
    const reply = await session(app, undefined, headers);
    assert.is(reply.status, 401, name);
    assert.equal(reply.body, { code: 401, message: Messages.invalidToken }, name);
  }
});

test('an expired token says so', async ({ app }) => {
  const tenant = await provisionTenant(app);
  const claims = jwt.decode(tenant.token) as jwt.JwtPayload;
  const past = Math.floor(Date.now() / 1000) - 3600;
  const { kid, secret } = keyringFor(app.app.config, 'jwt').primary;
  const expired = jwt.sign({ ...claims, iat: past - 60, exp: past }, tokenSigningKey(secret), { keyid: kid });
  refused(await session(app, expired), 401, Messages.expiredToken);
});

test('logout answers the session with loggedOutAt and ends the token at once', async ({ app }) => {
  const tenant = await provisionTenant(app);
  const reply = await app.call('POST', '/auth/logout', { token: tenant.token });
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.is(reply.body.accessToken, undefined);
  assert.match(reply.body.loggedOutAt, ISO);
  assert.is(reply.body.updatedAt, reply.body.loggedOutAt);
  assert.is(reply.body.userId, tenant.userId);
  refused(await session(app, tenant.token), 401, Messages.invalidToken);
  refused(await app.call('POST', '/auth/logout', { token: tenant.token }), 401, Messages.invalidToken);
  // Other sessions of the same credential live on.
  const again = await authenticateOverHttp(app, tenant.clientId, tenant.clientSecret);
  assert.is((await session(app, again.body.accessToken)).status, 200);
});

test('revoking a credential ends its sessions at once; other credentials of the user go on', async ({ app }) => {
  const tenant = await provisionTenant(app);
  const other = await issueCredential(app.app, tenant.userId);
  const otherToken = (await authenticateOverHttp(app, other.clientId, other.clientSecret)).body.accessToken;
  await revokeCredential(app.app, tenant.clientId);
  refused(await session(app, tenant.token), 401, Messages.invalidToken);
  assert.is((await session(app, otherToken)).status, 200);
});

test('repeated wrong secrets lock the client id, even for the right secret, then the lock ends', async ({ app }) => {
  const tenant = await provisionTenant(app);
  for (let i = 0; i < FAILURES_BEFORE_LOCK; i++) {
    refused(await authenticateOverHttp(app, tenant.clientId, `wrong-${i}`), 401, Messages.invalidClientSecret);
  }
  const locked = await authenticateOverHttp(app, tenant.clientId, tenant.clientSecret);
  refused(locked, 429, Messages.tooManyFailedSecrets);
  const retryAfter = Number(locked.headers.get('retry-after'));
  assert.ok(retryAfter >= 1 && retryAfter <= LOCK_SECONDS, `Retry-After ${retryAfter}`);
  // Other client ids are not affected.
  const neighbour = await provisionTenant(app);
  assert.is((await authenticateOverHttp(app, neighbour.clientId, neighbour.clientSecret)).status, 200);
  // Fixed: the lock's length is what is under test (a poll with the right secret would only show it ends some time).
  await sleep(LOCK_SECONDS * 1000 + 100);
  assert.is((await authenticateOverHttp(app, tenant.clientId, tenant.clientSecret)).status, 200);
});

test('only consecutive wrong secrets count: a right one starts the count again', async ({ app }) => {
  const tenant = await provisionTenant(app);
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < FAILURES_BEFORE_LOCK - 1; i++) {
      refused(await authenticateOverHttp(app, tenant.clientId, 'wrong'), 401, Messages.invalidClientSecret);
    }
    assert.is((await authenticateOverHttp(app, tenant.clientId, tenant.clientSecret)).status, 200);
  }
});

async function spend(app: TestApp, tenant: Pick<TestTenant, 'token'>, times: number) {
  for (let i = 0; i < times; i++) assert.is((await session(app, tenant.token)).status, 200, `request ${i + 1}`);
}

test('429 with Retry-After after the per-credential limit', async ({ app }) => {
  const tenant = await provisionTenant(app);
  await spend(app, tenant, LIMIT_PER_CREDENTIAL);
  const reply = await session(app, tenant.token);
  refused(reply, 429, Messages.rateLimited);
  const retryAfter = Number(reply.headers.get('retry-after'));
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  // Another organization is not affected.
  await spend(app, await provisionTenant(app), 1);
});

test('the organization limit spans its credentials', async ({ app }) => {
  const tenant = await provisionTenant(app);
  const second = await issueCredential(app.app, tenant.userId);
  const secondToken = (await authenticateOverHttp(app, second.clientId, second.clientSecret)).body.accessToken;
  await spend(app, tenant, LIMIT_PER_ORGANIZATION / 2);
  await spend(app, { token: secondToken }, LIMIT_PER_ORGANIZATION / 2);
  refused(await session(app, secondToken), 429, Messages.rateLimited);
});

test('RateLimit-* on every authenticated reply, for the tighter of the credential and organization limits', async ({ app }) => {
  const tenant = await provisionTenant(app);
  const limits = (reply: { headers: Headers }) => ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].map((name) => Number(reply.headers.get(name) ?? NaN)) as [number, number, number];
  const first = await session(app, tenant.token);
  const [limit, remaining, reset] = limits(first);
  assert.equal([limit, remaining], [LIMIT_PER_CREDENTIAL, LIMIT_PER_CREDENTIAL - 1], 'the credential is the tighter at first');
  assert.ok(reset >= 1 && reset <= 60, `RateLimit-Reset ${reset}`);
  const failed = await app.call('GET', `/v2/report/${'a'.repeat(24)}`, { token: tenant.token });
  assert.ok(failed.status >= 400, 'an error reply');
  assert.equal(limits(failed).slice(0, 2), [LIMIT_PER_CREDENTIAL, LIMIT_PER_CREDENTIAL - 2], 'error replies carry them too');

  // A second credential of the organization: its own count is fresh, the organization's is not.
  const second = await issueCredential(app.app, tenant.userId);
  const secondToken = (await authenticateOverHttp(app, second.clientId, second.clientSecret)).body.accessToken;
  await spend(app, tenant, LIMIT_PER_ORGANIZATION - LIMIT_PER_CREDENTIAL);
  const used = 2 + LIMIT_PER_ORGANIZATION - LIMIT_PER_CREDENTIAL;
  const other = await session(app, secondToken);
  assert.equal(limits(other).slice(0, 2), [LIMIT_PER_ORGANIZATION, LIMIT_PER_ORGANIZATION - used - 1], 'then the organization is');

  await spend(app, { token: secondToken }, LIMIT_PER_ORGANIZATION - used - 1);
  const over = await session(app, secondToken);
  refused(over, 429, Messages.rateLimited);
  assert.equal(limits(over).slice(0, 2), [LIMIT_PER_ORGANIZATION, 0]);
  assert.is(over.headers.get('retry-after'), over.headers.get('ratelimit-reset'));
  assert.is((await app.call('GET', '/auth/session')).headers.get('ratelimit-limit'), null, 'not on unauthenticated replies');
});

test.run();
