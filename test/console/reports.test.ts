import { request } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { ConsoleBrowser, signedInTenant } from '../support/console-browser.ts';
import type { TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { eventually } from '../support/wait.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  policyId: string;
  browser: ConsoleBrowser;
  outsider: ConsoleBrowser;
}
const test = suite<Ctx>('console: report pages over HTTP (list, create, page, live stream), gated like the API');

test.before(async (ctx) => {
  ctx.app = await startTestApp();
  ({ tenant: ctx.tenant, browser: ctx.browser } = await signedInTenant(ctx.app, { name: 'Banco Exemplo', email: 'ana@banco.example', password: 'uma senha bem longa' }));
  ctx.policyId = (await ctx.app.call('POST', '/credit-policy/policy', { token: ctx.tenant.token, body: DEMO_CNPJ_POLICY })).body.id;
  // Another organization, without the reports module.
  ctx.outsider = (await signedInTenant(ctx.app, { name: 'Sem Relatórios', modules: ['proposals'], email: 'bia@outra.example', password: 'outra senha longa' })).browser;
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

/** The first Server-Sent Event of the live stream, raw, and the stream's status and type. */
function firstLiveEvent(ctx: Ctx, reportId: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; text: string }> {
  const cookie = [...ctx.browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  return new Promise((resolve, reject) => {
    const outgoing = request(`${ctx.app.url}/console/relatorios/${reportId}/ao-vivo`, { headers: { cookie, accept: 'text/event-stream', ...headers } });
    outgoing.on('error', reject);
    outgoing.on('response', (incoming) => {
      let text = '';
      incoming.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (/\n\n(id:[\s\S]*?\n\n)/.test(text) || incoming.statusCode !== 200) {
          incoming.destroy();
          resolve({ status: incoming.statusCode!, type: String(incoming.headers['content-type']), text });
        }
      });
      incoming.on('end', () => resolve({ status: incoming.statusCode!, type: String(incoming.headers['content-type']), text }));
    });
    outgoing.end();
  });
}

test('create from the list page: a bad document comes back with its message and what was typed; a good one redirects to its page', async (ctx) => {
  const csrf = await ctx.browser.csrfOf('/console/relatorios');
  const bad = await ctx.browser.post('/console/relatorios', { documento: '11.222.333/0001-00', tipo: 'cnpj', politica: ctx.policyId, csrf });
  assert.is(bad.status, 400);
  assert.ok(bad.text.includes(Messages.invalidDocument) && bad.text.includes('value="11.222.333/0001-00"'), bad.text.slice(0, 400));
  const good = await ctx.browser.post('/console/relatorios', { documento: '11.222.333/0001-81', tipo: 'cnpj', politica: ctx.policyId, csrf });
  assert.is(good.status, 303);
  const reportId = good.headers.get('location')!.split('/').pop()!;
  await waitForReport(ctx.app, ctx.tenant.token, reportId);
  const page = await ctx.browser.get(`/console/relatorios/${reportId}`);
  assert.is(page.status, 200);
  assert.ok(page.text.includes('data-status="APPROVED"') && page.text.includes('Fatos lidos') && page.text.includes(`sse-connect="/console/relatorios/${reportId}/ao-vivo"`));
  assert.ok(page.text.includes('<script src="/console/assets/htmx.min.js"></script>'));
  const list = await ctx.browser.get('/console/relatorios?documento=11222333000181&status=APPROVED');
  assert.ok(list.text.includes(`/console/relatorios/${reportId}`));
  const none = await ctx.browser.get('/console/relatorios?status=DENIED');
  assert.not.ok(none.text.includes(`/console/relatorios/${reportId}`));

  const live = await firstLiveEvent(ctx, reportId, { 'last-event-id': '1' });
  assert.equal([live.status, live.type], [200, 'text/event-stream; charset=utf-8']);
  assert.match(live.text, /^retry: 2000\n\nid: \S+\nevent: relatorio\ndata: /);
  assert.ok(live.text.includes('data-status="APPROVED"'), 'the current fragment, at once');
});

test("manual analysis from the report page: a missing opinion comes back with the API's message; a decision is recorded, then redone", async (ctx) => {
  const created = await ctx.app.call('POST', '/v2/report', { token: ctx.tenant.token, body: { document: '10.000.002/0001-34', type: 'cnpj', policyId: ctx.policyId } });
  await waitForReport(ctx.app, ctx.tenant.token, created.body.id);
  const path = `/console/relatorios/${created.body.id}`;
  const before = await ctx.browser.get(path);
  assert.ok(before.text.includes('<h2>Análise manual</h2>'), 'a finalized report can be decided by the analyst');
  const csrf = await ctx.browser.csrfOf(path);
  const empty = await ctx.browser.post(`${path}/analise`, { decisao: 'aprovar', comentario: '', csrf });
  assert.is(empty.status, 400);
  assert.match(empty.text, /commentary/);
  const decided = await ctx.browser.post(`${path}/analise`, { decisao: 'negar', comentario: 'Pefin recente sem justificativa.', csrf });
  assert.equal([decided.status, decided.headers.get('location')], [303, path]);
  const after = await ctx.browser.get(path);
  assert.ok(after.text.includes('data-status="DENIED"') && after.text.includes('Refazer a análise manual'));
  const redone = await ctx.browser.post(`${path}/analise`, { decisao: 'aprovar', comentario: 'Justificativa recebida.', csrf });
  assert.is(redone.status, 303);
  assert.ok((await ctx.browser.get(path)).text.includes('data-status="APPROVED"'));
});

test("the committee's deliberation on the report page: the chair's synthesis, the alçada, each specialist with the sections it saw", async (ctx) => {
  const created = await ctx.app.call('POST', '/v2/report', { token: ctx.tenant.token, body: { document: '11.222.333/0001-81', type: 'cnpj', policyId: ctx.policyId } });
  await waitForReport(ctx.app, ctx.tenant.token, created.body.id);
  const convened = await ctx.app.call('POST', `/report/${created.body.id}/committee`, { token: ctx.tenant.token, body: {} });
  assert.ok([200, 201, 202].includes(convened.status), JSON.stringify(convened.body));
  const page = await eventually(
    async () => {
      const reply = await ctx.browser.get(`/console/relatorios/${created.body.id}`);
      return reply.text.includes('Próxima ação') && reply.text;
    },
    { timeoutMs: 20_000, what: 'the deliberation on the page' },
  );
  assert.ok(page.includes('Comitê de crédito') && page.includes('Cadastral') && page.includes('Seções vistas'));
});

test("the pages answer as the API does: another organization's report is 404, a user without the module 403, the assets are local", async (ctx) => {
  const report = await ctx.app.call('POST', '/v2/report', { token: ctx.tenant.token, body: { document: '11.222.333/0001-81', type: 'cnpj', policyId: ctx.policyId } });
  assert.is((await ctx.outsider.get('/console/relatorios')).status, 403);
  assert.is((await ctx.outsider.get(`/console/relatorios/${report.body.id}`)).status, 403);
  const { browser: third } = await signedInTenant(ctx.app, { name: 'Terceira', email: 'caio@terceira.example', password: 'mais uma senha longa' });
  assert.is((await third.get(`/console/relatorios/${report.body.id}`)).status, 404);
  assert.is((await third.get(`/console/relatorios/${report.body.id}/ao-vivo`)).status, 404);
  const script = await ctx.browser.get('/console/assets/htmx.min.js');
  assert.equal([script.status, script.headers.get('content-type')], [200, 'text/javascript; charset=utf-8']);
  assert.is((await ctx.browser.get('/console/assets/../../package.json')).status, 404);
});

test.run();
