import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../support/app.ts';
import { ConsoleBrowser, signedInTenant } from '../support/console-browser.ts';
import type { TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  browser: ConsoleBrowser;
}
const test = suite<Ctx>('console: the sanctions and PEP lists reports are screened against (GET /v1/screening/lists)');

test.before(async (ctx) => {
  ctx.app = await startTestApp();
  ({ tenant: ctx.tenant, browser: ctx.browser } = await signedInTenant(ctx.app, { name: 'Banco Exemplo', email: 'ana@banco.example', password: 'uma senha bem longa' }));
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

test('the menu leads to the page, which shows each list as the API does: title, version in use with its SHA-256, entries', async (ctx) => {
  const home = await ctx.browser.get('/console');
  assert.ok(home.text.includes('href="/console/listas-de-triagem"'), 'in the menu');
  const api = await eventually(
    async () => {
      const reply = await ctx.app.call('GET', '/v1/screening/lists', { token: ctx.tenant.token });
      return reply.body.lists.every((l: { status: string }) => l.status === 'LOADED') && reply.body;
    },
    { what: 'the fixture lists loaded' },
  );
  const page = await ctx.browser.get('/console/listas-de-triagem');
  assert.is(page.status, 200);
  for (const list of api.lists as Array<{ list: string; listTitle: string; sha256: string; entryCount: number }>) {
    assert.ok(page.text.includes(list.sha256), `${list.list}: its SHA-256`);
    assert.ok(page.text.includes(`${list.entryCount} entradas`), `${list.list}: its entries`);
    assert.ok(page.text.includes(`<code>${list.list}</code>`), list.list);
  }
});

test("a user whose organization does not read reports is refused, as by the API's route", async (ctx) => {
  const { tenant, browser } = await signedInTenant(ctx.app, { name: 'Só Coletas', email: 'bia@coletas.example', password: 'uma senha bem longa', modules: ['onboarding'] });
  assert.is((await ctx.app.call('GET', '/v1/screening/lists', { token: tenant.token })).status, 403);
  const page = await browser.get('/console/listas-de-triagem');
  assert.is(page.status, 403);
  assert.not.ok((await browser.get('/console')).text.includes('/console/listas-de-triagem'), 'not in the menu');
});

test.run();
