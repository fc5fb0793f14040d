import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../support/app.ts';
import { personalCredit, seedProduct } from '../support/catalog.ts';
import { ConsoleBrowser, signedInTenant } from '../support/console-browser.ts';
import type { TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  browser: ConsoleBrowser;
  proposalId: string;
}
const test = suite<Ctx>('console: proposals list and page');

test.before(async (ctx) => {
  ctx.app = await startTestApp();
  ({ tenant: ctx.tenant, browser: ctx.browser } = await signedInTenant(ctx.app, { name: 'Banco Exemplo', email: 'ana@banco.example', password: 'uma senha bem longa' }));
  await seedProduct(ctx.app, ctx.tenant.organizationId);
  const created = await ctx.app.call('POST', '/v1/proposals', {
    token: ctx.tenant.token,
    body: {
      document: '123.456.789-09',
      name: 'Maria <Silva>',
      productKey: personalCredit().key,
      requestedAmountCents: 500_000,
      requestedTermMonths: 12,
      contact: { name: 'Maria', email: 'maria@example.com', phone: '+5511987654321' },
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  ctx.proposalId = created.body.id;
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

test('the list finds the proposal by name and status (names escaped); its page shows the request and its history', async (ctx) => {
  const list = await eventually(
    async () => {
      const page = await ctx.browser.get('/console/propostas?busca=Maria&status=DRAFT');
      return page.text.includes(`/console/propostas/${ctx.proposalId}`) && page;
    },
    { timeoutMs: 10_000, what: 'the proposal listed' },
  );
  assert.ok(list.text.includes('Maria &#60;Silva&#62;') && !list.text.includes('Maria <Silva>'));
  assert.ok(list.text.includes('R$'));
  assert.not.ok((await ctx.browser.get('/console/propostas?status=ISSUED')).text.includes(ctx.proposalId));
  const page = await ctx.browser.get(`/console/propostas/${ctx.proposalId}`);
  assert.is(page.status, 200);
  assert.ok(page.text.includes('Rascunho') && page.text.includes('em 12 meses') && page.text.includes('Histórico'));
  const { browser: other } = await signedInTenant(ctx.app, { name: 'Outra', email: 'outra@banco.example', password: 'senha da outra' });
  assert.is((await other.get(`/console/propostas/${ctx.proposalId}`)).status, 404);
});

test.run();
