import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PublicFormMessages } from '../../domain/public-form/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { clientAddress, parseTrustProxy } from '../../http/client-address.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { newCnpj } from '../collection/support.ts';

const PER_ADDRESS = 20;
const test = suite('public routes: the client address (TRUST_PROXY off by default), a limit per address, page headers');
let app: TestApp;
let tenant: TestTenant;
let templateId: string;
/** Requests to public routes this file has made, all from 127.0.0.1 whatever they claimed. */
let sent = 0;

test.before(async () => {
  app = await startTestApp({ PUBLIC_RATE_LIMIT_PER_ADDRESS: String(PER_ADDRESS), PUBLIC_RATE_LIMIT_WINDOW_SECONDS: '3600' });
  tenant = await provisionTenant(app, { name: 'Banco Exemplo' });
  const created = await app.call('POST', '/v1/collection-templates', {
    token: tenant.token,
    body: {
      slug: 'conta',
      name: 'Abertura de conta',
      items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }],
      notificationChannel: 'NONE',
      publicForm: true,
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  templateId = created.body.id;
});
test.after(async () => {
  await app?.stop();
});

function publicFetch(path: string, init: RequestInit = {}) {
  sent++;
  return fetch(`${app.url}${path}`, { redirect: 'manual', ...init });
}

const submitForm = (forwardedFor: string) =>
  publicFetch(`/formulario/${templateId}`, {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forwardedFor },
    body: new URLSearchParams({ nome: 'Empresa Exemplo', documento: newCnpj(), email: 'contato@example.com', telefone: '(11) 99999-8888' }).toString(),
  });

test('public pages: a CSP without inline script, never framed, nosniff, no Referer (their URLs carry tokens)', async () => {
  for (const path of [`/c/${'x'.repeat(43)}`, `/formulario/${templateId}`, `/oferta/${'y'.repeat(43)}`]) {
    const reply = await publicFetch(path, { headers: { accept: 'text/html' } });
    assert.match(reply.headers.get('content-type') ?? '', /^text\/html/, path);
    const csp = reply.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors 'none'/, path);
    assert.match(csp, /script-src 'self'(;|$)/, path);
    assert.not.match(csp, /script-src[^;]*unsafe-inline/, path);
    assert.is(reply.headers.get('x-content-type-options'), 'nosniff', path);
    assert.is(reply.headers.get('referrer-policy'), 'no-referrer', path);
    assert.not.match(await reply.text(), /<script>/, path);
  }
  const script = await publicFetch('/oferta/assets/simulacao.js');
  assert.is(script.status, 200);
  assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/);
  assert.match(await script.text(), /toLocaleString\('pt-BR'/);
});

test('the public form: a rotating X-Forwarded-For is not a new client, so the sixth submission of the hour is 429', async () => {
  const statuses: number[] = [];
  for (let i = 1; i <= 7; i++) statuses.push((await submitForm(`198.51.100.${i}`)).status);
  assert.equal(statuses, [303, 303, 303, 303, 303, 429, 429]);
  const refused = await submitForm('198.51.100.99');
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  assert.match(await refused.text(), PublicFormMessages.tooManyFromAddress);
});

test('every public route counts against the client address: 429 with Retry-After past the limit, whatever X-Forwarded-For says', async () => {
  const paths = [`/c/${'x'.repeat(43)}`, `/oferta/${'y'.repeat(43)}`, `/formulario/${templateId}`, '/console/entrar'];
  while (sent < PER_ADDRESS) {
    const reply = await publicFetch(paths[sent % paths.length]!, { headers: { 'x-forwarded-for': `203.0.113.${sent}` } });
    assert.ok(reply.status !== 429, `refused after ${sent} requests`);
  }
  const refused = await publicFetch(`/c/${'x'.repeat(43)}`, { headers: { 'x-forwarded-for': '192.0.2.200' } });
  assert.is(refused.status, 429);
  assert.equal(await refused.json(), { code: 429, message: Messages.rateLimited });
  const retryAfter = Number(refused.headers.get('retry-after'));
  assert.ok(retryAfter > 0 && retryAfter <= 3600, `Retry-After ${retryAfter}`);
  // OAuth client registration is one of them.
  const registration = await publicFetch('/oauth/reg', { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.201' }, body: '{}' });
  assert.is(registration.status, 429);
  // Routes with a credential are not.
  assert.is((await app.call('GET', '/v1/collections', { token: tenant.token })).status, 200);
});

test('TRUST_PROXY: off takes the socket, a hop count takes that many entries from the right, a list walks past trusted proxies only', () => {
  const chain = '1.1.1.1, 10.0.0.5, 10.0.0.7';
  assert.is(clientAddress('::ffff:127.0.0.1', chain, parseTrustProxy('false')), '127.0.0.1');
  assert.is(clientAddress('10.0.0.9', chain, parseTrustProxy('1')), '10.0.0.7');
  assert.is(clientAddress('10.0.0.9', chain, parseTrustProxy('2')), '10.0.0.5');
  assert.is(clientAddress('10.0.0.9', chain, parseTrustProxy('10.0.0.0/8')), '1.1.1.1');
  assert.is(clientAddress('10.0.0.9', chain, parseTrustProxy('10.0.0.9, 10.0.0.7')), '10.0.0.5');
  assert.is(clientAddress('203.0.113.1', chain, parseTrustProxy('10.0.0.0/8')), '203.0.113.1', 'a peer that is no trusted proxy is the client');
  assert.is(clientAddress('10.0.0.9', 'forjado, 10.0.0.7', parseTrustProxy('10.0.0.0/8')), '10.0.0.7', 'garbage stops the walk');
  assert.throws(() => parseTrustProxy('proxy.example'), /TRUST_PROXY/);
});

test.run();
