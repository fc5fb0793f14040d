import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../support/app.ts';
import { ConsoleBrowser, signedInTenant } from '../support/console-browser.ts';
import type { TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  receiver: Receiver;
  browser: ConsoleBrowser;
  subscriptionId: string;
}
const test = suite<Ctx>('console: webhook subscriptions, their delivery log and redelivery');

test.before(async (ctx) => {
  ctx.receiver = await startReceiver((_request, index) => ({ status: index === 0 ? 500 : 200 }));
  ctx.app = await startTestApp({ WEBHOOK_RETRY_DELAYS: '60s' });
  ({ tenant: ctx.tenant, browser: ctx.browser } = await signedInTenant(ctx.app, { name: 'Banco Exemplo', email: 'ana@banco.example', password: 'uma senha bem longa' }));
  const created = await ctx.app.call('POST', '/v1/webhook/subscriptions', { token: ctx.tenant.token, body: { url: `${ctx.receiver.url}/hooks`, events: ['registry.updated'] } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  ctx.subscriptionId = created.body.id;
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  await ctx.receiver?.close();
});

test('a failed delivery is in the log with its attempt; Reenviar sends it again and the log shows the second attempt', async (ctx) => {
  const list = await ctx.browser.get('/console/webhooks');
  assert.ok(list.text.includes(`/console/webhooks/${ctx.subscriptionId}`) && list.text.includes('registry.updated'));
  assert.is((await ctx.app.call('POST', `/v1/webhook/subscriptions/${ctx.subscriptionId}/ping`, { token: ctx.tenant.token })).status, 202);
  const failed = await eventually(
    async () => {
      const page = await ctx.browser.get(`/console/webhooks/${ctx.subscriptionId}`);
      return page.text.includes('1ª') && page.text.includes('500') && page;
    },
    { timeoutMs: 15_000, what: 'the first attempt in the log' },
  );
  const deliveryId = /action="\/console\/webhooks\/entregas\/([0-9a-f]{24})\/reenviar"/.exec(failed.text)![1]!;
  const again = await ctx.browser.post(`/console/webhooks/entregas/${deliveryId}/reenviar`, { csrf: await ctx.browser.csrfOf(`/console/webhooks/${ctx.subscriptionId}`) });
  assert.equal([again.status, again.headers.get('location')], [303, `/console/webhooks/${ctx.subscriptionId}?reenviada=1`]);
  await ctx.receiver.waitFor(2);
  const after = await eventually(
    async () => {
      const page = await ctx.browser.get(`/console/webhooks/${ctx.subscriptionId}`);
      return page.text.includes('2ª') && page.text.includes('entregue') && page;
    },
    { timeoutMs: 15_000, what: 'the second attempt in the log' },
  );
  assert.ok(after.text.includes('200'));
});

test("gated like the API: without a webhook permission the page is 403 and the menu has no link; another organization's subscription is 404", async (ctx) => {
  const { browser: browser } = await signedInTenant(ctx.app, { name: 'Leitura', permissions: ['can-generate-report'], email: 'leitor@banco.example', password: 'senha de quem lê' });
  assert.is((await browser.get('/console/webhooks')).status, 403);
  assert.not.ok((await browser.get('/console')).text.includes('href="/console/webhooks"'));
  const { browser: other } = await signedInTenant(ctx.app, { name: 'Outra', email: 'outra@banco.example', password: 'senha da outra' });
  assert.is((await other.get(`/console/webhooks/${ctx.subscriptionId}`)).status, 404);
});

test.run();
