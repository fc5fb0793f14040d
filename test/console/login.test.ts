import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setPassword } from '../../application/identity/login-commands.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { ConsoleBrowser } from '../support/console-browser.ts';
import { authenticateOverHttp, giveLogin, provisionTenant, type TestTenant } from '../support/identity.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  other: TestTenant;
}
const test = suite<Ctx>('console: sign-in with e-mail and password, session cookie, CSRF, lockout, password change, API credentials');
const EMAIL = 'ana.analista@banco.example';
const PASSWORD = 'correct horse battery';

test.before(async (ctx) => {
  // TRUST_PROXY: the https test below comes as through a proxy (X-Forwarded-Proto).
  ctx.app = await startTestApp({ AUTH_FAILURES_BEFORE_LOCK: '3', AUTH_LOCK_SECONDS: '60', TRUST_PROXY: '1' });
  ctx.tenant = await provisionTenant(ctx.app, { name: 'Banco Exemplo' });
  await giveLogin(ctx.app, ctx.tenant.userId, EMAIL, PASSWORD);
  ctx.other = await provisionTenant(ctx.app, { name: 'Outra Financeira' });
  await giveLogin(ctx.app, ctx.other.userId, 'bruno@outra.example', 'another good password');
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

const eventCount = async (ctx: Ctx) => Number((await ctx.app.database.knex('events').count({ n: '*' }))[0]!.n);
const cookieLine = (lines: string[], name: string) => lines.find((line) => line.startsWith(`${name}=`)) ?? '';

test('without a session: a browser is sent to the sign-in page, anything else gets 401 in the error shape', async ({ app }) => {
  const browser = new ConsoleBrowser(app);
  const home = await browser.get('/console');
  assert.equal([home.status, home.headers.get('location')], [303, '/console/entrar']);
  const script = await app.call('GET', '/console');
  assert.equal([script.status, script.body], [401, { code: 401, message: Messages.invalidToken }]);
  const login = await browser.get('/console/entrar');
  assert.is(login.status, 200);
  assert.match(login.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  assert.match(cookieLine(login.setCookies, 'console_csrf'), /; path=\/console; samesite=strict; httponly$/i);
});

test('wrong password, unknown address, missing or foreign form token: refused with one text, and no session is started', async (ctx) => {
  const browser = new ConsoleBrowser(ctx.app);
  const before = await eventCount(ctx);
  for (const [email, password] of [
    [EMAIL, 'wrong password!'],
    ['nobody@banco.example', PASSWORD],
    ['not an address', PASSWORD],
  ]) {
    const reply = await browser.signIn(email!, password!);
    assert.is(reply.status, 401, email);
    assert.ok(reply.text.includes(Messages.wrongLogin), reply.text);
    assert.ok(reply.text.includes(`value="${email}"`), 'the address typed is kept in the form');
  }
  const noToken = await browser.post('/console/entrar', { email: EMAIL, senha: PASSWORD });
  assert.is(noToken.status, 403);
  const foreign = await browser.post('/console/entrar', { email: EMAIL, senha: PASSWORD, csrf: await browser.csrfOf('/console/entrar') }, { origin: 'https://evil.example' });
  assert.is(foreign.status, 403, 'a form posted from another site');
  const elsewhere = new ConsoleBrowser(ctx.app);
  const stolen = await elsewhere.post('/console/entrar', { email: EMAIL, senha: PASSWORD, csrf: await browser.csrfOf('/console/entrar') });
  assert.is(stolen.status, 403, "another browser's token is refused: it has no matching cookie");
  assert.is(await eventCount(ctx), before);
  assert.not.ok(browser.cookies.has('console_session'));
});

test('signed in: an HttpOnly SameSite cookie under /console (Secure behind HTTPS), the home page, and the cookie is no bearer token', async (ctx) => {
  const browser = new ConsoleBrowser(ctx.app);
  const signedIn = await browser.signIn(' Ana.Analista@BANCO.example ', PASSWORD);
  assert.equal([signedIn.status, signedIn.headers.get('location')], [303, '/console']);
  const cookie = cookieLine(signedIn.setCookies, 'console_session');
  assert.match(cookie, /; path=\/console; expires=[^;]+; samesite=lax; httponly$/i);
  const home = await browser.get('/console');
  assert.is(home.status, 200);
  assert.ok(home.text.includes('Banco Exemplo') && home.text.includes('can-generate-report'), home.text.slice(0, 500));

  const asBearer = await ctx.app.call('GET', '/auth/session', { token: browser.cookies.get('console_session') });
  assert.is(asBearer.status, 401);
  const apiTokenAsCookie = new ConsoleBrowser(ctx.app, { cookie: `console_session=${ctx.tenant.token}` });
  assert.is((await apiTokenAsCookie.get('/console')).status, 303);

  const https = new ConsoleBrowser(ctx.app, { 'x-forwarded-proto': 'https' });
  const secure = await https.signIn(EMAIL, PASSWORD);
  assert.match(cookieLine(secure.setCookies, 'console_session'), /; secure; httponly$/i);
  assert.is((await browser.get('/console/entrar')).headers.get('location'), '/console', 'signed in already');
});

test('API settings: a credential created in the console authenticates against the API, its secret shown once; revoked there, it stops', async (ctx) => {
  const browser = new ConsoleBrowser(ctx.app);
  await browser.signIn(EMAIL, PASSWORD);
  const created = await browser.post('/console/api/credenciais', { csrf: await browser.csrfOf('/console/api') });
  assert.is(created.status, 201);
  const clientId = /id="client-id">([^<]+)</.exec(created.text)![1]!;
  const secret = /id="client-secret">([^<]+)</.exec(created.text)![1]!;
  assert.is((await authenticateOverHttp(ctx.app, clientId, secret)).status, 200);
  const listed = await browser.get('/console/api');
  assert.ok(listed.text.includes(clientId));
  assert.not.ok(listed.text.includes(secret), 'the secret is never shown again');

  const credential = await ctx.app.app.db('identity_credentials').where({ client_id: clientId }).first();
  const noToken = await browser.post(`/console/api/credenciais/${credential.id}/revogar`, {});
  assert.is(noToken.status, 403);
  const revoked = await browser.post(`/console/api/credenciais/${credential.id}/revogar`, { csrf: await browser.csrfOf('/console/api') });
  assert.equal([revoked.status, revoked.headers.get('location')], [303, '/console/api']);
  assert.equal((await authenticateOverHttp(ctx.app, clientId, secret)).body, { code: 400, message: Messages.invalidClientId });
  assert.match((await browser.get('/console/api')).text, /revogada em/);

  const stranger = new ConsoleBrowser(ctx.app);
  await stranger.signIn('bruno@outra.example', 'another good password');
  const notTheirs = await stranger.post(`/console/api/credenciais/${ctx.tenant.credentialId}/revogar`, { csrf: await stranger.csrfOf('/console/api') });
  assert.is(notTheirs.status, 404);
  assert.is((await authenticateOverHttp(ctx.app, ctx.tenant.clientId, ctx.tenant.clientSecret)).status, 200);
});

test('password change: the current one first, the new one twice and long enough; other sessions end, this one stays', async (ctx) => {
  const here = new ConsoleBrowser(ctx.app);
  const there = new ConsoleBrowser(ctx.app);
  await here.signIn(EMAIL, PASSWORD);
  await there.signIn(EMAIL, PASSWORD);
  const change = async (atual: string, nova: string, confirmacao = nova) => here.post('/console/senha', { atual, nova, confirmacao, csrf: await here.csrfOf('/console/senha') });
  const wrong = await change('not the password', 'a new long password');
  assert.equal([wrong.status, wrong.text.includes(Messages.wrongCurrentPassword)], [400, true]);
  const short = await change(PASSWORD, 'short');
  assert.equal([short.status, short.text.includes(Messages.passwordLength)], [400, true]);
  const mismatch = await change(PASSWORD, 'a new long password', 'a new long passw0rd');
  assert.equal([mismatch.status, mismatch.text.includes(Messages.passwordMismatch)], [400, true]);
  const changed = await change(PASSWORD, 'a new long password');
  assert.is(changed.status, 200);
  assert.is((await here.get('/console')).status, 200);
  assert.is((await there.get('/console')).status, 303, 'the other session ended');
  assert.is((await new ConsoleBrowser(ctx.app).signIn(EMAIL, PASSWORD)).status, 401);
  assert.is((await new ConsoleBrowser(ctx.app).signIn(EMAIL, 'a new long password')).status, 303);
  await setPassword(ctx.app.app, ctx.tenant.userId, PASSWORD);
});

test('sign out: the cookie is cleared and the session refused even if the old cookie is sent again', async (ctx) => {
  const browser = new ConsoleBrowser(ctx.app);
  await browser.signIn(EMAIL, PASSWORD);
  const token = browser.cookies.get('console_session')!;
  const out = await browser.post('/console/sair', { csrf: await browser.csrfOf('/console') });
  assert.equal([out.status, out.headers.get('location')], [303, '/console/entrar']);
  assert.not.ok(browser.cookies.has('console_session'));
  assert.is((await new ConsoleBrowser(ctx.app, { cookie: `console_session=${token}` }).get('/console')).status, 303);
});

test('lockout: after AUTH_FAILURES_BEFORE_LOCK wrong passwords the address answers 429 with Retry-After, even with the right one', async (ctx) => {
  const browser = new ConsoleBrowser(ctx.app);
  for (let i = 0; i < 3; i++) assert.is((await browser.signIn('bruno@outra.example', 'wrong password ' + i)).status, 401);
  const locked = await browser.signIn('bruno@outra.example', 'another good password');
  assert.is(locked.status, 429);
  assert.ok(locked.text.includes(Messages.tooManyFailedLogins));
  assert.ok(Number(locked.headers.get('retry-after')) > 0);
  assert.is((await browser.signIn(EMAIL, PASSWORD)).status, 303, 'another address is not locked');
});

test.run();
