import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { authenticateOverHttp, giveLogin, provisionTenant, type TestTenant } from '../support/identity.ts';
import { askAuthorization, connectMcp, exchangeCode, MemoryOAuthClient } from '../support/mcp.ts';
import { CHROMIUM_TOOL, launchChromium } from '../support/chromium.ts';
import { suiteNeeding } from '../support/system-tools.ts';
import { eventually } from '../support/wait.ts';

const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'console');
const EMAIL = 'ana@banco.example';
const PASSWORD = 'uma senha bem longa';
/** PROTESTS never answers for this CNPJ: the report waits SOURCE_TIMEOUT_MS, long enough to watch it move. */
const SLOW_CNPJ = '10.000.003/0001-89';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  browser: Browser;
  page: Page;
  policyName: string;
}
const test = suiteNeeding<Ctx>('console in a real browser (chromium): sign in, a report updating live, an API credential, an MCP agent authorized', [CHROMIUM_TOOL]);

test.before(async (ctx) => {
  // Long enough that a busy machine still opens the page before the decision (2.5 s was not, under load).
  ctx.app = await startTestApp({ SOURCE_TIMEOUT_MS: '6000' });
  ctx.tenant = await provisionTenant(ctx.app, { name: 'Banco Exemplo' });
  await giveLogin(ctx.app, ctx.tenant.userId, EMAIL, PASSWORD);
  const policy = await ctx.app.call('POST', '/credit-policy/policy', { token: ctx.tenant.token, body: DEMO_CNPJ_POLICY });
  assert.is(policy.status, 200, JSON.stringify(policy.body));
  ctx.policyName = DEMO_CNPJ_POLICY.name;
  mkdirSync(ARTIFACTS, { recursive: true });
  ctx.browser = await launchChromium();
  ctx.page = await (await ctx.browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  ctx.page.on('pageerror', (error) => console.error('page error:', error.message));
});
test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.app?.stop();
});

const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

test('sign in with e-mail and password', async ({ app, page }) => {
  await page.goto(`${app.url}/console`);
  assert.match(page.url(), /\/console\/entrar$/);
  await page.fill('#email', EMAIL);
  await page.fill('#senha', PASSWORD);
  await shot(page, '01-entrar');
  await Promise.all([page.waitForURL(`${app.url}/console`), page.click('button[type=submit]')]);
  assert.ok((await page.textContent('main'))!.includes('Banco Exemplo'));
  await shot(page, '02-inicio');
});

test('create a report and watch its page move to the decision without a reload; first paint and live update timed', async (ctx) => {
  const { app, page } = ctx;
  await page.goto(`${app.url}/console/relatorios`);
  await page.fill('input[name=documento]', SLOW_CNPJ);
  await page.selectOption('select[name=tipo]', 'cnpj');
  await page.selectOption('select[name=politica]', { label: `${ctx.policyName} (CNPJ)` });
  await shot(page, '03-relatorios');
  await Promise.all([page.waitForURL(/\/console\/relatorios\/[0-9a-f]{24}$/), page.click('form[action="/console/relatorios"] button[type=submit]')]);
  const reportId = page.url().split('/').pop()!;
  // The page's first paint on its own (a second tab of the same session opening it), not after the create form's POST.
  const tab = await page.context().newPage();
  await tab.goto(page.url());
  const firstPaint = await tab.evaluate(() => new Promise<number>((resolve) => new PerformanceObserver((list) => resolve(list.getEntries()[0]!.startTime)).observe({ type: 'paint', buffered: true })));
  await tab.close();
  const initial = await page.getAttribute('#status', 'data-status');
  assert.ok(['PENDING', 'PROCESSING'].includes(initial!), `still running when the page opened: ${initial}`);
  // The moment the status on screen changes, by the page's own clock (the same machine's).
  await page.evaluate(() => {
    const target = document.querySelector('#relatorio')!;
    new MutationObserver(() => {
      const status = document.querySelector('#status')?.getAttribute('data-status');
      if (status && !['PENDING', 'PROCESSING'].includes(status) && !(window as unknown as { changedAt?: number }).changedAt) {
        (window as unknown as { changedAt?: number }).changedAt = performance.timeOrigin + performance.now();
      }
    }).observe(target, { childList: true, subtree: true });
  });
  const navigations = await page.evaluate(() => performance.getEntriesByType('navigation').length);
  await page.waitForFunction(() => (window as unknown as { changedAt?: number }).changedAt, undefined, { timeout: 15_000 });
  assert.is(await page.evaluate(() => performance.getEntriesByType('navigation').length), navigations, 'no reload');
  assert.is(await page.getAttribute('#status', 'data-status'), 'MANUAL_ANALYSIS');
  assert.ok((await page.textContent('#relatorio'))!.includes('Por que esta decisão'), 'the explanation arrived with the decision');
  const changedAt = await page.evaluate(() => (window as unknown as { changedAt: number }).changedAt);
  const decided = await app.database
    .knex('events')
    .where({ stream_name: `report-${reportId}`, event_type: 'ReportDecided' })
    .first('created_at');
  const liveMs = Math.round(changedAt - new Date(decided.created_at).getTime());
  console.log(`console: report page first contentful paint ${Math.round(firstPaint)} ms; live update shown ${liveMs} ms after the decision was appended`);
  assert.ok(liveMs >= 0 && liveMs < 5000, `live update ${liveMs} ms`);
  await shot(page, '04-relatorio');

  // On a phone: one column, nothing wider than the screen.
  const phone = await page.context().newPage();
  await phone.setViewportSize({ width: 390, height: 844 });
  await phone.goto(page.url());
  const [scrollWidth, innerWidth] = await phone.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  await phone.screenshot({ path: join(ARTIFACTS, '04-relatorio-celular.png'), fullPage: true });
  await phone.close();
  assert.ok(scrollWidth <= innerWidth, `the report page is ${scrollWidth} px wide on a ${innerWidth} px phone`);
});

test('run a backtest of the policy as it is over the report just decided: nothing would change', async (ctx) => {
  const { app, page } = ctx;
  await page.goto(`${app.url}/console/politicas`);
  await Promise.all([page.waitForURL(/\/console\/politicas\/[0-9a-f]{24}$/), page.click(`text=${ctx.policyName}`)]);
  await Promise.all([page.waitForURL(/\/editar$/), page.click('text=Editar e testar')]);
  await Promise.all([page.waitForURL(/\/backtest$/), page.click('text=Testar sobre relatórios anteriores')]);
  assert.ok((await page.textContent('#backtest'))!.includes('0 de 1 decisões mudariam'));
  await shot(page, '05-backtest');
});

test("the proposals dashboard draws its charts with the local chart.js under the page's CSP", async ({ app, page }) => {
  const refused: string[] = [];
  page.on('console', (message) => message.type() === 'error' && refused.push(message.text()));
  await page.goto(`${app.url}/console/painel`);
  await page.waitForSelector('body[data-graficos="prontos"]', { timeout: 10_000 });
  assert.is(await page.locator('canvas').count(), 4);
  assert.equal(refused, [], 'no script or style refused by the CSP');
  await shot(page, '06-painel');
});

test("a collection's trail verified in the browser from the export and the published keys; an altered entry is caught", async ({ app, page, tenant }) => {
  const created = await app.call('POST', '/v1/collections', {
    token: tenant.token,
    body: {
      subject: { name: 'Padaria Exemplo Ltda', document: '11.222.333/0001-81' },
      items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }],
      recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
      send: true,
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const collectionId = created.body.id;
  const sealed = async () => (await app.database.knex('collection_trail_seals').where({ collection_id: collectionId }).count({ n: '*' }))[0]!.n;
  await eventually(async () => Number(await sealed()) > 0, { what: 'a seal of the collection' });
  await page.goto(`${app.url}/console/coletas/${collectionId}`);
  await page.click('#verificar-cadeia');
  await page.waitForSelector('#veredito[data-verificada]', { timeout: 10_000 });
  assert.is(await page.getAttribute('#veredito', 'data-verificada'), 'sim', (await page.textContent('#veredito'))!);
  await shot(page, '07-coleta');
  // Someone with database access rewrites an entry: the browser's check, not the server, says so.
  await app.database.knex('collection_trail_entries').where({ collection_id: collectionId, seq: 1 }).update({ occurred_at: '2020-01-01T00:00:00.000Z' });
  await page.reload();
  await page.click('#verificar-cadeia');
  await page.waitForSelector('#veredito[data-verificada]', { timeout: 10_000 });
  assert.is(await page.getAttribute('#veredito', 'data-verificada'), 'nao');
  assert.match((await page.textContent('#veredito'))!, /entrada 1: o conteúdo não confere/);
});

test('create an API credential in the console and use it against the API', async ({ app, page }) => {
  await page.goto(`${app.url}/console/api`);
  await Promise.all([page.waitForURL(`${app.url}/console/api/credenciais`), page.click('form[action="/console/api/credenciais"] button')]);
  const clientId = (await page.textContent('#client-id'))!;
  const secret = (await page.textContent('#client-secret'))!;
  await shot(page, '08-credencial');
  const session = await authenticateOverHttp(app, clientId, secret);
  assert.is(session.status, 200);
  const reports = await app.call('GET', '/v2/report', { token: session.body.accessToken });
  assert.is(reports.status, 200);
  assert.ok(reports.body.total >= 1, 'the report created in the console is listed');
});

test("authorize an MCP agent: the consent page, then back to the agent's loopback address with a code it exchanges", async ({ app, page }) => {
  // The agent's redirect listener, as a desktop client runs one on 127.0.0.1.
  let received: (url: URL) => void;
  const callback = new Promise<URL>((resolve) => (received = resolve));
  const listener = createServer((req, res) => {
    received(new URL(req.url!, 'http://127.0.0.1'));
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('Pode fechar esta janela.');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  try {
    const oauth = new MemoryOAuthClient('Agente no navegador', `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`);
    await page.goto((await askAuthorization(app, oauth)).href);
    assert.match(page.url(), /\/console\/oauth\/[A-Za-z0-9_-]+$/);
    assert.match((await page.textContent('#cliente'))!, 'Agente no navegador');
    await shot(page, '09-mcp-autorizar');
    await page.click('button[value=permitir]');
    const back = await callback;
    const code = back.searchParams.get('code');
    assert.ok(code, back.href);
    await exchangeCode(app, oauth, code!);
    const client = await connectMcp(app, oauth);
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'criar_relatorio'));
    await client.close();
  } finally {
    listener.close();
  }
});

test.run();
