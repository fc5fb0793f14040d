import { request } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { handleCommand } from '../../application/command-handler.ts';
import { hashSecret, PASSWORD_PARAMS } from '../../application/identity/secrets.ts';
import { identityStreams } from '../../domain/identity/events.ts';
import { userDecider } from '../../domain/identity/user-decider.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { ConsoleBrowser } from '../support/console-browser.ts';
import { giveLogin, provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';

const FAILURES_BEFORE_LOCK = 3;
const FAILURES_PER_ADDRESS = 8;

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
}
const test = suite<Ctx>('identity: tries at a secret are counted before it is checked, per key and per caller address');

test.before(async (ctx) => {
  ctx.app = await startTestApp({
    AUTH_FAILURES_BEFORE_LOCK: String(FAILURES_BEFORE_LOCK),
    AUTH_FAILURES_PER_ADDRESS: String(FAILURES_PER_ADDRESS),
    AUTH_LOCK_SECONDS: '60',
  });
  ctx.tenant = await provisionTenant(ctx.app, { name: 'Banco Alvo' });
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

/** POST /auth/authenticate leaving from a loopback address of our choice: the caller's address as the service sees it. */
function authenticateFrom(app: TestApp, localAddress: string, clientId: string, clientSecret: string): Promise<{ status: number; body: { message?: string } }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${app.url}/auth/authenticate`, { method: 'POST', localAddress, headers: { 'service-client-id': clientId, 'service-client-secret': clientSecret } });
    outgoing.on('error', reject);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    outgoing.end();
  });
}

const statuses = (replies: { status: number }[]) => replies.map((r) => r.status).sort();

test('20 wrong passwords sent at once: at most AUTH_FAILURES_BEFORE_LOCK are checked (401), every other one is refused (429)', async ({ app }) => {
  const tenant = await provisionTenant(app, { name: 'Banco Paralelo' });
  await giveLogin(app, tenant.userId, 'paralelo@banco.example', 'the right password');
  const browser = new ConsoleBrowser(app, {}, '127.0.0.2');
  const csrf = await browser.csrfOf('/console/entrar');
  const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => browser.post('/console/entrar', { email: 'paralelo@banco.example', senha: `wrong password ${i}`, csrf })));
  const counted = statuses(replies);
  assert.ok(counted.filter((s) => s === 401).length <= FAILURES_BEFORE_LOCK, counted.join(','));
  assert.ok(
    counted.every((s) => s === 401 || s === 429),
    counted.join(','),
  );
  const locked = await new ConsoleBrowser(app, {}, '127.0.0.3').signIn('paralelo@banco.example', 'the right password');
  assert.is(locked.status, 429, 'the address is locked, even with the right password');
  assert.ok(locked.text.includes(Messages.tooManyFailedLogins));
});

test('one caller spreading wrong passwords over many addresses is stopped at AUTH_FAILURES_PER_ADDRESS; another caller is not', async ({ app }) => {
  const guesser = new ConsoleBrowser(app, {}, '127.0.0.4');
  const replies = [];
  for (let i = 0; i <= FAILURES_PER_ADDRESS; i++) replies.push(await guesser.signIn(`pessoa${i}@banco.example`, 'a guessed password'));
  assert.equal(
    replies.map((r) => r.status),
    [...Array(FAILURES_PER_ADDRESS).fill(401), 429],
  );
  assert.ok(replies.at(-1)!.text.includes(Messages.tooManyFailuresFromAddress));
  assert.is((await new ConsoleBrowser(app, {}, '127.0.0.5').signIn('pessoa0@banco.example', 'a guessed password')).status, 401);
});

test("a stranger's wrong secrets for a client id, from another address, do not lock the integrator out", async ({ app, tenant }) => {
  const stranger = [];
  for (let i = 0; i <= FAILURES_BEFORE_LOCK; i++) stranger.push(await authenticateFrom(app, '127.0.0.6', tenant.clientId, 'not the secret'));
  assert.equal(
    stranger.map((r) => r.status),
    [...Array(FAILURES_BEFORE_LOCK).fill(401), 429],
  );
  assert.is(stranger.at(-1)!.body.message, Messages.tooManyFailedSecrets);
  assert.is((await authenticateFrom(app, '127.0.0.7', tenant.clientId, tenant.clientSecret)).status, 200);
  assert.is((await authenticateFrom(app, '127.0.0.6', tenant.clientId, tenant.clientSecret)).status, 429, 'the stranger stays locked');
});

test('a password hashed at the older scrypt cost signs in, and is hashed again at N=2^17', async ({ app }) => {
  const tenant = await provisionTenant(app, { name: 'Banco Antigo' });
  await giveLogin(app, tenant.userId, 'antigo@banco.example', 'an old good password');
  const old = await hashSecret('an old good password', { N: 16384, r: 8, p: 1 });
  await handleCommand(app.app.store, identityStreams.user(tenant.userId), userDecider, { type: 'SetPassword', passwordHash: old, at: new Date() });
  const storedHash = async () => (await app.app.db('identity_users').where({ id: tenant.userId }).first('password_hash')).password_hash as string;
  await eventually(async () => (await storedHash()) === old, { what: 'the old hash projected' });
  assert.is((await new ConsoleBrowser(app, {}, '127.0.0.8').signIn('antigo@banco.example', 'an old good password')).status, 303);
  const rehashed = await storedHash();
  assert.match(rehashed, new RegExp(`^scrypt\\$N=${PASSWORD_PARAMS.N},r=8,p=1\\$`));
  assert.is((await new ConsoleBrowser(app, {}, '127.0.0.8').signIn('antigo@banco.example', 'an old good password')).status, 303);
});

test.run();
