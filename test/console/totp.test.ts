import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Secret, TOTP } from 'otpauth';
import { interactionPath } from '../../application/mcp/authorization-server.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { ConsoleBrowser, type PageReply } from '../support/console-browser.ts';
import { giveLogin, provisionTenant } from '../support/identity.ts';

interface Ctx {
  app: TestApp;
  /** How far the service's clock is ahead of the real one: the next TOTP step without waiting 30 s. */
  offset: number;
}
const test = suite<Ctx>('console: TOTP second factor (enrolment, sign-in with the code, replay, lockout, turning it off)');
const PASSWORD = 'correct horse battery';
const STEP_MS = 30_000;

test.before(async (ctx) => {
  ctx.app = await startTestApp({ AUTH_FAILURES_BEFORE_LOCK: '3', AUTH_FAILURES_PER_ADDRESS: '100', AUTH_LOCK_SECONDS: '60' });
  ctx.offset = 0;
  ctx.app.app.clock = { now: () => new Date(Date.now() + ctx.offset) };
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

const totp = (secret: string) => new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
/** The code of the service's current step (what the user's app shows now). */
const codeNow = (ctx: Ctx, secret: string) => totp(secret).generate({ timestamp: Date.now() + ctx.offset });
/** A code of none of the accepted steps (the current one and its neighbours). */
function wrongCode(ctx: Ctx, secret: string): string {
  const accepted = [-1, 0, 1].map((d) => totp(secret).generate({ timestamp: Date.now() + ctx.offset + d * STEP_MS }));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!accepted.includes(code)) return code;
  }
}
const nextStep = (ctx: Ctx) => {
  ctx.offset += STEP_MS;
};
const hidden = (page: PageReply, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(page.text)?.[1] ?? '';

async function signInWithCode(app: TestApp, email: string, code?: string, voltar?: string) {
  const browser = new ConsoleBrowser(app);
  const reply = await browser.post('/console/entrar', {
    email,
    senha: PASSWORD,
    csrf: await browser.csrfOf('/console/entrar'),
    ...(code !== undefined && { codigo: code }),
    ...(voltar && { voltar }),
  });
  return { reply, signedIn: browser.cookies.has('console_session') };
}

/** A user with a login, signed in, whose enrolment page is open: the browser, the page and the secret it shows. */
async function userOnEnrolment(app: TestApp, name: string, email: string) {
  const tenant = await provisionTenant(app, { name });
  await giveLogin(app, tenant.userId, email, PASSWORD);
  const browser = new ConsoleBrowser(app);
  assert.is((await browser.signIn(email, PASSWORD)).status, 303);
  const page = await browser.get('/console/verificacao');
  assert.is(page.status, 200);
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(page.text)?.[1] ?? '';
  return { tenant, browser, page, secret };
}

const enable = async (browser: ConsoleBrowser, page: PageReply, code: string) =>
  browser.post('/console/verificacao/ativar', { csrf: hidden(page, 'csrf'), pendente: hidden(page, 'pendente'), codigo: code });
/** The recovery codes a page shows (only the page that made them). */
const recoveryCodesOn = (page: PageReply) => [...page.text.matchAll(/<li><code>([a-z2-7]{4}(?:-[a-z2-7]{4}){3})<\/code><\/li>/g)].map((m) => m[1]!);

test('enrolment: a new secret with its otpauth:// URI; a wrong code is refused and keeps the secret, a current one turns TOTP on; the secret is never stored in clear', async (ctx) => {
  const { tenant, browser, page, secret } = await userOnEnrolment(ctx.app, 'Banco Exemplo', 'ana@banco.example');
  assert.is(secret.length, 32, page.text);
  assert.match(page.text, new RegExp(`otpauth://totp/[^"<]*secret=${secret}[^"<]*(?:digits=6|period=30)`));

  const wrong = await enable(browser, page, wrongCode(ctx, secret));
  assert.equal([wrong.status, wrong.text.includes(Messages.wrongTotpCode), wrong.text.includes(secret)], [400, true, true]);
  assert.is((await signInWithCode(ctx.app, 'ana@banco.example')).reply.status, 303, 'still off: the password alone signs in');

  const tampered = await browser.post('/console/verificacao/ativar', { csrf: hidden(page, 'csrf'), pendente: 'v2.x.y.z.w', codigo: codeNow(ctx, secret) });
  assert.is(tampered.status, 400, 'only a secret this session was given');

  const on = await enable(browser, page, codeNow(ctx, secret));
  assert.is(on.status, 200, on.text);
  const settings = await browser.get('/console/verificacao');
  assert.ok(settings.text.includes('/console/verificacao/desativar') && !settings.text.includes(secret), 'on: the secret is not shown again');

  const events = await ctx.app.database.knex('events').where('stream_name', `user-${tenant.userId}`).select('event_type', 'data');
  assert.ok(events.some((e: { event_type: string }) => e.event_type === 'UserTotpEnabled'));
  assert.not.ok(JSON.stringify(events).includes(secret), 'the secret is sealed in the event');
  const row = await ctx.app.database.knex('identity_users').where({ id: tenant.userId }).first();
  assert.not.ok(JSON.stringify(row).includes(secret));
});

test('sign-in with TOTP on: the password alone opens no session (MCP consent sign-in included); a current code does, once; a replayed code is refused', async (ctx) => {
  const { browser, page, secret } = await userOnEnrolment(ctx.app, 'Financeira Dois', 'bia@dois.example');
  assert.is((await enable(browser, page, codeNow(ctx, secret))).status, 200);

  const bare = await signInWithCode(ctx.app, 'bia@dois.example');
  assert.equal([bare.reply.status, bare.signedIn, bare.reply.text.includes(Messages.wrongLogin)], [401, false, true]);
  const forConsent = await signInWithCode(ctx.app, 'bia@dois.example', '', interactionPath('abc123'));
  assert.equal([forConsent.reply.status, forConsent.signedIn], [401, false], "the MCP connector's consent goes through this sign-in");

  nextStep(ctx);
  const code = codeNow(ctx, secret);
  const good = await signInWithCode(ctx.app, 'bia@dois.example', code);
  assert.equal([good.reply.status, good.signedIn], [303, true]);
  const replayed = await signInWithCode(ctx.app, 'bia@dois.example', code);
  assert.equal([replayed.reply.status, replayed.signedIn, replayed.reply.text.includes(Messages.wrongLogin)], [401, false, true]);
});

test('wrong codes lock the login like wrong passwords: after AUTH_FAILURES_BEFORE_LOCK, 429 even with the right code', async (ctx) => {
  const { browser, page, secret } = await userOnEnrolment(ctx.app, 'Financeira Tres', 'caio@tres.example');
  assert.is((await enable(browser, page, codeNow(ctx, secret))).status, 200);
  nextStep(ctx);
  for (let i = 0; i < 3; i++) assert.is((await signInWithCode(ctx.app, 'caio@tres.example', wrongCode(ctx, secret))).reply.status, 401);
  const locked = await signInWithCode(ctx.app, 'caio@tres.example', codeNow(ctx, secret));
  assert.equal([locked.reply.status, locked.signedIn, locked.reply.text.includes(Messages.tooManyFailedLogins)], [429, false, true]);
});

test('turning TOTP off asks for the password and a current code; then the password alone signs in again', async (ctx) => {
  const { browser, page, secret } = await userOnEnrolment(ctx.app, 'Financeira Quatro', 'davi@quatro.example');
  assert.is((await enable(browser, page, codeNow(ctx, secret))).status, 200);
  nextStep(ctx);
  const off = async (senha: string, codigo: string) => browser.post('/console/verificacao/desativar', { csrf: await browser.csrfOf('/console/verificacao'), senha, codigo });
  const wrongPassword = await off('not the password', codeNow(ctx, secret));
  assert.equal([wrongPassword.status, wrongPassword.text.includes(Messages.wrongCurrentPassword)], [400, true]);
  const wrong = await off(PASSWORD, wrongCode(ctx, secret));
  assert.equal([wrong.status, wrong.text.includes(Messages.wrongTotpCode)], [400, true]);
  assert.is((await off(PASSWORD, codeNow(ctx, secret))).status, 200);
  assert.ok((await browser.get('/console/verificacao')).text.includes('/console/verificacao/ativar'));
  assert.is((await signInWithCode(ctx.app, 'davi@quatro.example')).reply.status, 303);
});

test('enabling TOTP shows 10 recovery codes once, kept only as hashes, and ends the other console sessions; the one enabling stays', async (ctx) => {
  const { tenant, browser, page, secret } = await userOnEnrolment(ctx.app, 'Financeira Cinco', 'eva@cinco.example');
  const elsewhere = new ConsoleBrowser(ctx.app);
  assert.is((await elsewhere.signIn('eva@cinco.example', PASSWORD)).status, 303);
  assert.is((await elsewhere.get('/console')).status, 200);

  const on = await enable(browser, page, codeNow(ctx, secret));
  assert.is(on.status, 200, on.text);
  const codes = recoveryCodesOn(on);
  assert.is(codes.length, 10, on.text);
  assert.is(new Set(codes).size, 10);
  assert.is((await elsewhere.get('/console')).status, 303, 'a session opened with the password alone ended');
  assert.is((await browser.get('/console')).status, 200, 'the session that enabled it stays');

  const settings = await browser.get('/console/verificacao');
  assert.equal([recoveryCodesOn(settings), /id="codigos-restantes">10</.test(settings.text)], [[], true], 'not shown again; counted');
  const events = await ctx.app.database.knex('events').where('stream_name', `user-${tenant.userId}`).select('data');
  for (const code of codes) assert.not.ok(JSON.stringify(events).includes(code) || JSON.stringify(events).includes(code.replaceAll('-', '')), 'only hashes are stored');
});

test('a recovery code signs in instead of a TOTP code, once (any case, with or without dashes); renewing them needs the password and a code and voids the old ones', async (ctx) => {
  const { browser, page, secret } = await userOnEnrolment(ctx.app, 'Financeira Seis', 'fabio@seis.example');
  const codes = recoveryCodesOn(await enable(browser, page, codeNow(ctx, secret)));
  assert.is(codes.length, 10);

  const first = await signInWithCode(ctx.app, 'fabio@seis.example', codes[0]);
  assert.equal([first.reply.status, first.signedIn], [303, true], first.reply.text);
  const again = await signInWithCode(ctx.app, 'fabio@seis.example', codes[0]);
  assert.equal([again.reply.status, again.signedIn, again.reply.text.includes(Messages.wrongLogin)], [401, false, true], 'a recovery code is good once');
  const typed = await signInWithCode(ctx.app, 'fabio@seis.example', ` ${codes[1]!.replaceAll('-', '').toUpperCase()} `);
  assert.equal([typed.reply.status, typed.signedIn], [303, true], 'typed without dashes, in capitals');
  const madeUp = await signInWithCode(ctx.app, 'fabio@seis.example', 'aaaa-bbbb-cccc-dddd');
  assert.equal([madeUp.reply.status, madeUp.signedIn], [401, false]);
  assert.match((await browser.get('/console/verificacao')).text, /id="codigos-restantes">8</);

  const renew = async (senha: string, codigo: string) => browser.post('/console/verificacao/recuperacao', { csrf: await browser.csrfOf('/console/verificacao'), senha, codigo });
  const wrongPassword = await renew('not the password', codes[2]!);
  assert.equal([wrongPassword.status, wrongPassword.text.includes(Messages.wrongCurrentPassword), recoveryCodesOn(wrongPassword)], [400, true, []]);
  const usedCode = await renew(PASSWORD, codes[0]!);
  assert.equal([usedCode.status, usedCode.text.includes(Messages.wrongTotpCode), recoveryCodesOn(usedCode)], [400, true, []]);
  nextStep(ctx);
  const renewed = await renew(PASSWORD, codeNow(ctx, secret));
  assert.is(renewed.status, 200, renewed.text);
  const fresh = recoveryCodesOn(renewed);
  assert.is(fresh.length, 10);
  assert.not.ok(fresh.some((code) => codes.includes(code)));

  const old = await signInWithCode(ctx.app, 'fabio@seis.example', codes[3]);
  assert.equal([old.reply.status, old.signedIn], [401, false], 'the codes before the renewal stopped working');
  const withFresh = await signInWithCode(ctx.app, 'fabio@seis.example', fresh[0]);
  assert.equal([withFresh.reply.status, withFresh.signedIn], [303, true]);

  // A user who lost the authenticator turns TOTP off with the password and a recovery code.
  const off = await browser.post('/console/verificacao/desativar', { csrf: await browser.csrfOf('/console/verificacao'), senha: PASSWORD, codigo: fresh[1]! });
  assert.is(off.status, 200, off.text);
  assert.is((await signInWithCode(ctx.app, 'fabio@seis.example')).reply.status, 303);
});

test('a session left open gets no more guesses than the sign-in form: wrong passwords or codes on the settings forms lock the login (429), the right ones too', async (ctx) => {
  const { browser, page, secret } = await userOnEnrolment(ctx.app, 'Financeira Sete', 'gil@sete.example');
  assert.is((await enable(browser, page, codeNow(ctx, secret))).status, 200);
  nextStep(ctx);
  const renew = async (senha: string, codigo: string) => browser.post('/console/verificacao/recuperacao', { csrf: await browser.csrfOf('/console/verificacao'), senha, codigo });
  const off = async (senha: string, codigo: string) => browser.post('/console/verificacao/desativar', { csrf: await browser.csrfOf('/console/verificacao'), senha, codigo });
  const changePassword = async (atual: string) =>
    browser.post('/console/senha', { csrf: await browser.csrfOf('/console/senha'), atual, nova: 'another good passphrase', confirmacao: 'another good passphrase' });

  assert.is((await renew(PASSWORD, wrongCode(ctx, secret))).status, 400, 'the right password with a wrong code counts');
  assert.is((await off('not the password', codeNow(ctx, secret))).status, 400);
  assert.is((await changePassword('not the password either')).status, 400);
  const locked = await changePassword(PASSWORD);
  assert.equal([locked.status, locked.text.includes(Messages.tooManyFailedLogins)], [429, true], locked.text);
  assert.is((await renew(PASSWORD, codeNow(ctx, secret))).status, 429);
  assert.is((await signInWithCode(ctx.app, 'gil@sete.example', codeNow(ctx, secret))).reply.status, 429, 'one allowance with the sign-in');
});

test.run();
