import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { ConsoleBrowser, signedInTenant } from '../support/console-browser.ts';
import type { TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  policyId: string;
  reportIds: string[];
  browser: ConsoleBrowser;
}
const test = suite<Ctx>('console: credit policies (versions side by side, a backtest of a draft over past reports, saving a version)');
/** Clean, five protests, one Pefin record: APPROVED, DENIED, MANUAL_ANALYSIS under the demo policy. */
const DOCUMENTS = ['11.222.333/0001-81', '10.000.001/0001-90', '10.000.002/0001-34'];

test.before(async (ctx) => {
  ctx.app = await startTestApp();
  ({ tenant: ctx.tenant, browser: ctx.browser } = await signedInTenant(ctx.app, { name: 'Banco Exemplo', email: 'ana@banco.example', password: 'uma senha bem longa' }));
  ctx.policyId = (await ctx.app.call('POST', '/credit-policy/policy', { token: ctx.tenant.token, body: DEMO_CNPJ_POLICY })).body.id;
  ctx.reportIds = [];
  for (const document of DOCUMENTS) {
    const created = await ctx.app.call('POST', '/v2/report', { token: ctx.tenant.token, body: { document, type: 'cnpj', policyId: ctx.policyId } });
    await waitForReport(ctx.app, ctx.tenant.token, created.body.id);
    ctx.reportIds.push(created.body.id);
  }
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

const eventCount = async (ctx: Ctx) => Number((await ctx.app.database.knex('events').count({ n: '*' }))[0]!.n);
const draftWith = (change: (policy: typeof DEMO_CNPJ_POLICY) => unknown) => JSON.stringify(change(structuredClone(DEMO_CNPJ_POLICY)));

test('backtest: a stricter approval cut-off moves the approved report to manual analysis, the rest stay; nothing is written', async (ctx) => {
  const edit = `/console/politicas/${ctx.policyId}/editar`;
  const form = await ctx.browser.get(edit);
  assert.is(form.status, 200);
  assert.ok(form.text.includes('&#34;approveFrom&#34;: 600'), 'the latest version as JSON');
  const before = await eventCount(ctx);
  const draft = draftWith((p) => ({ ...p, score: { ...p.score, max: 2000, approveFrom: 1500 } }));
  const reply = await ctx.browser.post(`/console/politicas/${ctx.policyId}/backtest`, { politica: draft, limite: '50', csrf: await ctx.browser.csrfOf(edit) });
  assert.is(reply.status, 200);
  assert.ok(reply.text.includes('1 de 3 decisões mudariam'), reply.text.slice(reply.text.indexOf('Backtest'), reply.text.indexOf('Backtest') + 300));
  const matrix = reply.text.slice(reply.text.indexOf('<tbody>', reply.text.indexOf('Antes')));
  assert.match(matrix, /<tr><th>Aprovado<\/th><td>0<\/td><td class="nao">1<\/td><td>0<\/td><\/tr>/);
  assert.ok(reply.text.includes('>11222333000181</a>'), 'the report that would change is listed');
  assert.ok(reply.text.includes('&#34;approveFrom&#34;:1500'), 'the draft stays in the form');
  assert.is(await eventCount(ctx), before, 'a backtest writes nothing');
});

test("backtest after an analyst's decision: \"before\" is still the policy's own decision, not the analyst's", async (ctx) => {
  // The Pefin report: MANUAL_ANALYSIS by the policy, then approved by an analyst.
  const analysis = await ctx.app.call('POST', '/report/analyze', { token: ctx.tenant.token, body: { id: ctx.reportIds[2], approved: true, commentary: 'Pefin quitado.' } });
  assert.is(analysis.status, 200);
  const edit = `/console/politicas/${ctx.policyId}/editar`;
  const draft = draftWith((p) => ({ ...p, score: { ...p.score, max: 2000, approveFrom: 1500 } }));
  const reply = await ctx.browser.post(`/console/politicas/${ctx.policyId}/backtest`, { politica: draft, limite: '50', csrf: await ctx.browser.csrfOf(edit) });
  // Compared with the analyst's APPROVED, the draft's MANUAL_ANALYSIS would count as a second change.
  assert.ok(reply.text.includes('1 de 3 decisões mudariam'), reply.text.slice(reply.text.indexOf('Backtest'), reply.text.indexOf('Backtest') + 300));
  assert.not.ok(reply.text.includes('>10000002000134</a>'), 'the report the analyst approved is not listed as changing');
});

test("a draft the API would refuse comes back on the form with the API's message", async (ctx) => {
  const csrf = await ctx.browser.csrfOf(`/console/politicas/${ctx.policyId}/editar`);
  const broken = await ctx.browser.post(`/console/politicas/${ctx.policyId}/backtest`, { politica: '{"name": ', csrf });
  assert.equal([broken.status, broken.text.includes(Messages.malformedJson)], [400, true]);
  const nameless = await ctx.browser.post(`/console/politicas/${ctx.policyId}/editar`, { politica: draftWith(({ name: _name, ...rest }) => rest), csrf });
  assert.is(nameless.status, 400);
  assert.match(nameless.text, /name/);
});

test('save as a new version, then versions 1 and 2 side by side show what changed', async (ctx) => {
  const csrf = await ctx.browser.csrfOf(`/console/politicas/${ctx.policyId}/editar`);
  const draft = draftWith((p) => ({ ...p, name: 'PJ mais rigorosa', score: { ...p.score, approveFrom: 700 }, groups: p.groups.map((g, i) => (i === 0 ? { ...g, rules: g.rules.slice(1) } : g)) }));
  const saved = await ctx.browser.post(`/console/politicas/${ctx.policyId}/editar`, { politica: draft, csrf });
  assert.equal([saved.status, saved.headers.get('location')], [303, `/console/politicas/${ctx.policyId}`]);
  const compared = await ctx.browser.get(`/console/politicas/${ctx.policyId}?de=1&para=2`);
  assert.is(compared.status, 200);
  for (const text of ['nome alterada', 'score: approveFrom alterada', 'regra removida', '>600<', '>700<']) assert.ok(compared.text.includes(text), `${text} in the comparison`);
  assert.ok(!compared.text.includes('regra incluída'));
  const list = await ctx.browser.get('/console/politicas');
  assert.ok(list.text.includes('PJ mais rigorosa') && list.text.includes('v2'));
});

test("gated like the API: a user who may read policies but not manage them gets 403 on edit and backtest; another organization's policy is 404", async (ctx) => {
  const { browser: browser } = await signedInTenant(ctx.app, { name: 'Só leitura', permissions: ['can-generate-report'], email: 'leitor@banco.example', password: 'senha de quem lê' });
  assert.is((await browser.get('/console/politicas')).status, 200);
  assert.is((await browser.get(`/console/politicas/${ctx.policyId}`)).status, 404);
  assert.is((await browser.get(`/console/politicas/${ctx.policyId}/editar`)).status, 403);
  const backtest = await browser.post(`/console/politicas/${ctx.policyId}/backtest`, { politica: '{}', csrf: await browser.csrfOf('/console/politicas') });
  assert.is(backtest.status, 403);
});

test.run();
