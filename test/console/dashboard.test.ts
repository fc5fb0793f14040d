import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../support/app.ts';
import { signedInTenant, type ConsoleBrowser } from '../support/console-browser.ts';

interface Ctx {
  app: TestApp;
  manager: ConsoleBrowser;
  analyst: ConsoleBrowser;
}
const test = suite<Ctx>('console: the proposals dashboard page (indicators, chart data, period, gates)');

test.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.manager = (await signedInTenant(ctx.app, { name: 'Banco Exemplo', email: 'gestora@banco.example', password: 'senha da gestora' })).browser;
  ctx.analyst = (await signedInTenant(ctx.app, { name: 'Só relatórios', modules: ['reports'], email: 'analista@outra.example', password: 'senha do analista' })).browser;
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

test('the nine indicators, the chart data as a JSON block for the local chart script, the period as asked', async ({ manager }) => {
  const page = await manager.get('/console/painel?de=2026-10-01&ate=2026-11-01');
  assert.is(page.status, 200);
  assert.is((page.text.match(/data-indicador="/g) ?? []).length, 9);
  assert.ok(page.text.includes('R$'), 'money in reais');
  const data = JSON.parse(/<script type="application\/json" id="painel-dados">([^<]*)<\/script>/.exec(page.text)![1]!);
  assert.equal(Object.keys(data).sort(), ['funnel', 'mix', 'received', 'status', 'weeks']);
  assert.is(data.funnel.labels[0], 'Recebidas');
  assert.ok(page.text.includes('<script src="/console/assets/chart.umd.min.js"></script><script src="/console/assets/painel.js"></script>'));
  assert.ok(page.text.includes('value="2026-10-01"') && page.text.includes('01/10/2026'));
  const script = await manager.get('/console/assets/chart.umd.min.js');
  assert.is(script.status, 200);
});

test('a period longer than the API allows is refused with its message; an organization without proposals gets 403', async ({ manager, analyst }) => {
  const tooLong = await manager.get('/console/painel?de=2024-01-01&ate=2026-01-01');
  assert.is(tooLong.status, 400);
  assert.match(tooLong.text, /366/);
  assert.is((await analyst.get('/console/painel')).status, 403);
});

test.run();
