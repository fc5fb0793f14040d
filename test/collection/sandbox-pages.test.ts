import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SANDBOX_MARK } from '../../domain/shared/provenance.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { signedInTenant, type ConsoleBrowser } from '../support/console-browser.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { issuedOffer } from '../support/offer.ts';
import { productionEnv } from '../support/production.ts';
import { detailWhen, newCnpj, upload, VALID_CONTRACT } from './support.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  browser: ConsoleBrowser;
}
const test = suite<Ctx>('sandbox banners on every recipient page and on a console collection holding a sandbox result (issue 37)');

test.before(async (ctx) => {
  // The test default: DEPLOYMENT=sandbox.
  ctx.app = await startTestApp();
  ({ tenant: ctx.tenant, browser: ctx.browser } = await signedInTenant(ctx.app, { name: 'Banco Sandbox', email: 'ana@sandbox.example', password: 'uma senha bem longa' }));
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

const RECIPIENT_BANNER = `<body><p class="erro" role="alert" data-sandbox><strong>${SANDBOX_MARK}</strong>`;
const asBrowser = (app: TestApp, path: string) => fetch(`${app.url}${path}`, { headers: { accept: 'text/html' } });

/** Every kind of recipient page: a public form, an open offer, and the refusals of each kind of link. */
async function recipientPages(app: TestApp, tenant: TestTenant) {
  const template = await app.call('POST', '/v1/collection-templates', {
    token: tenant.token,
    body: {
      slug: 'conta',
      name: 'Abertura de conta',
      items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL', appliesTo: 'PJ' }],
      notificationChannel: 'NONE',
      publicForm: true,
    },
  });
  assert.is(template.status, 201, JSON.stringify(template.body));
  return {
    form: `/formulario/${template.body.id}`,
    unknownForm: `/formulario/${'0'.repeat(24)}`,
    offer: `/oferta/${(await issuedOffer(app, tenant)).linkToken}`,
    unknownOffer: '/oferta/link-que-nao-existe',
    recipientRefusal: '/c/link-que-nao-existe',
  };
}

test('the public form, an open offer and the recipient refusal pages of a sandbox deployment open with the banner, once', async ({ app, tenant }) => {
  const pages = await recipientPages(app, tenant);
  for (const [name, path] of Object.entries(pages)) {
    const reply = await asBrowser(app, path);
    const html = await reply.text();
    assert.ok(html.includes(RECIPIENT_BANNER), `${name} (${reply.status}): ${html.slice(0, 400)}`);
    assert.is(html.split(SANDBOX_MARK).length, 2, `${name}: one banner`);
  }
  assert.match(await (await asBrowser(app, pages.offer)).text(), /Sua oferta de crédito/, 'the open offer itself, not a refusal');
  // The API's refusal stays the contract's JSON, untouched.
  const json = await app.call('GET', pages.recipientRefusal);
  assert.equal(Object.keys(json.body).sort(), ['code', 'message']);
  // The console's sign-in page is no recipient page.
  assert.not.ok((await (await asBrowser(app, '/console/entrar')).text()).includes('data-sandbox'));
});

test('the console collection page: the deployment banner, then the sandbox-result banner once the keyword analyser gave an opinion', async ({ app, tenant, browser }) => {
  const created = await app.call('POST', '/v1/collections', {
    token: tenant.token,
    body: {
      subject: { name: 'Padaria Exemplo Ltda', document: newCnpj() },
      items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }],
      recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
      notificationChannel: 'NONE',
      resolutionMode: 'REVIEW',
      send: true,
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const c = created.body;
  const before = await browser.get(`/console/coletas/${c.id}`);
  assert.is(before.status, 200);
  assert.match(before.text, /<p class="sandbox" role="alert"><strong>AMBIENTE DE TESTES: dados fictícios<\/strong> · Este serviço roda com DEPLOYMENT=sandbox/);
  await upload(app, tenant.organizationId, c, 0, 0, VALID_CONTRACT);
  const call = (method: string, path: string) => app.call(method, path, { token: tenant.token });
  await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.items[0].opinions[0]?.provenance?.sandbox === true, 'the keyword opinion');
  const after = await browser.get(`/console/coletas/${c.id}`);
  assert.match(after.text, /<p class="sandbox" role="alert"><strong>AMBIENTE DE TESTES: dados fictícios<\/strong> · O que esta página mostra contém resultados de sandbox/);
});

test.run();

const production = suite<{ app: TestApp; tenant: TestTenant }>('a DEPLOYMENT=production service: no sandbox banner on any recipient page');

production.before(async (ctx) => {
  ctx.app = await startTestApp(productionEnv());
  ctx.tenant = await provisionTenant(ctx.app);
});
production.after(async (ctx) => {
  await ctx.app?.stop();
});

production('the public form, an open offer and the refusals carry no banner; /ready says production', async ({ app, tenant }) => {
  assert.equal((await app.call('GET', '/ready')).body.deployment, 'production');
  for (const [name, path] of Object.entries(await recipientPages(app, tenant))) {
    const html = await (await asBrowser(app, path)).text();
    assert.match(html, /<body>/, `${name}: a page`);
    assert.not.ok(html.includes(SANDBOX_MARK) || html.includes('data-sandbox'), `${name}: ${html.slice(0, 400)}`);
  }
});

production.run();
