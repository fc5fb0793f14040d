import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../support/app.ts';
import { signedInTenant, type ConsoleBrowser } from '../support/console-browser.ts';

interface Ctx {
  app: TestApp;
  browser: ConsoleBrowser;
  outsider: ConsoleBrowser;
  collectionId: string;
}
const test = suite<Ctx>('console: collections list, page and the trail export the page verifies');

test.before(async (ctx) => {
  ctx.app = await startTestApp();
  const { tenant: bank, browser } = await signedInTenant(ctx.app, { name: 'Banco Exemplo', email: 'ana@banco.example', password: 'uma senha bem longa' });
  ctx.browser = browser;
  const created = await ctx.app.call('POST', '/v1/collections', {
    token: bank.token,
    body: {
      subject: { name: 'Padaria <Exemplo>', document: '11.222.333/0001-81' },
      items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }],
      recipients: [{ name: 'Ana', email: 'ana@example.com' }],
      send: false,
    },
  });
  ctx.collectionId = created.body.id;
  ctx.outsider = (await signedInTenant(ctx.app, { name: 'Outra', email: 'bia@outra.example', password: 'outra senha longa' })).browser;
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

test("the list filters by status, the page lists items and trail with the verify button, the export is the API's JSON; another organization gets 404", async (ctx) => {
  const list = await ctx.browser.get('/console/coletas?status=DRAFT');
  assert.ok(list.text.includes(`/console/coletas/${ctx.collectionId}`) && list.text.includes('Padaria &#60;Exemplo&#62;'));
  assert.not.ok((await ctx.browser.get('/console/coletas?status=COMPLETED')).text.includes(ctx.collectionId));
  const page = await ctx.browser.get(`/console/coletas/${ctx.collectionId}`);
  assert.ok(page.text.includes('Contrato social') && page.text.includes('COLLECTION_CREATED') && page.text.includes('id="verificar-cadeia"'));
  assert.ok(page.text.includes('<script src="/console/assets/trilha.js"></script>'));
  const exported = await ctx.browser.get(`/console/coletas/${ctx.collectionId}/trilha.json`);
  const doc = JSON.parse(exported.text);
  assert.equal([doc.format, doc.collectionId, doc.entries.length], ['collection-trail-export/2', ctx.collectionId, 1]);
  for (const path of [`/console/coletas/${ctx.collectionId}`, `/console/coletas/${ctx.collectionId}/trilha.json`]) assert.is((await ctx.outsider.get(path)).status, 404, path);
});

test.run();
