import ExcelJS from 'exceljs';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { ConsoleBrowser, signedInTenant } from '../support/console-browser.ts';
import type { TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { poppler, suiteNeeding } from '../support/system-tools.ts';
import { pageCount, pageText } from '../collection/signed-document/pdf-tools.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  browser: ConsoleBrowser;
  receiver: Receiver;
}

const MARK = 'AMBIENTE DE TESTES: dados fictícios';
const test = suiteNeeding<Ctx>('a sandbox report carries the sandbox mark in its JSON, PDF pages, XLSX sheets, console page and webhooks', [poppler('pdftotext')]);

test.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.receiver = await startReceiver();
  ({ tenant: ctx.tenant, browser: ctx.browser } = await signedInTenant(ctx.app, { name: 'Banco Sandbox', email: 'ana@sandbox.example', password: 'uma senha bem longa' }));
});
test.after(async (ctx) => {
  await ctx.receiver?.close();
  await ctx.app?.stop();
});

/** The signed link names PUBLIC_BASE_URL; the test service listens elsewhere. */
const download = async (app: TestApp, url: string) => (await fetch(app.url + new URL(url).pathname + new URL(url).search)).arrayBuffer();

test('one report on the sandbox sources: JSON, every PDF page, every sheet, the console page and the webhooks all say so', async ({ app, tenant, browser, receiver }) => {
  const events = ['report.section.updated', 'report.finished', 'report.status.changed'];
  const subscribed = await app.call('POST', '/v1/webhook/subscriptions', { token: tenant.token, body: { url: `${receiver.url}/hooks`, events } });
  assert.is(subscribed.status, 201, JSON.stringify(subscribed.body));
  const policyId = (await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: DEMO_CNPJ_POLICY })).body.id;
  // A document with protests: enough data for a PDF of more than one page.
  const reportId = (await app.call('POST', '/v2/report', { token: tenant.token, body: { document: '10000001000190', type: 'cnpj', policyId } })).body.id;
  const report = await waitForReport(app, tenant.token, reportId);

  // JSON: the report, each section and each decision name their provider and the sandbox.
  assert.is(report.sandbox, true);
  for (const section of report.sections) {
    // SANCTIONS comes from the published lists in every mode (docs/reports.md, Screening): never a sandbox result.
    if (section.type.value === 'SANCTIONS') {
      assert.equal(section.provenance, { provider: 'SCREENING', sandbox: false });
      continue;
    }
    const expected = ['SUMMARY', 'CREDIT_POLICY'].includes(section.type.value) ? 'CREDIT_POLICY_ENGINE' : 'SANDBOX';
    assert.equal(section.provenance, { provider: expected, sandbox: true }, section.type.value);
  }
  const decisions = (await app.call('GET', `/report/${reportId}/decisions`, { token: tenant.token })).body;
  assert.equal(
    decisions.map((d: any) => d.provenance),
    [{ provider: 'CREDIT_POLICY_ENGINE', sandbox: true }],
  );

  // PDF: the mark on every page, as pdftotext reads each one.
  const pdf = await app.call('POST', `/report/${reportId}/export`, { token: tenant.token, body: { format: 'pdf' } });
  assert.is(pdf.status, 200, JSON.stringify(pdf.body));
  const pdfBytes = Buffer.from(await download(app, pdf.body.url));
  const pages = await pageCount(pdfBytes);
  assert.ok(pages > 1, `${pages} page(s)`);
  for (let page = 1; page <= pages; page++) assert.ok((await pageText(pdfBytes, page)).includes(MARK), `PDF page ${page}`);

  // XLSX: the mark is the first cell of every sheet.
  const xlsx = await app.call('POST', `/report/${reportId}/export`, { token: tenant.token, body: { format: 'xlsx' } });
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(await download(app, xlsx.body.url));
  assert.equal(
    workbook.worksheets.map((sheet) => [sheet.name, sheet.getCell('A1').value]),
    workbook.worksheets.map((sheet) => [sheet.name, MARK]),
  );

  // The console's report page: the banner.
  const page = await browser.get(`/console/relatorios/${reportId}`);
  assert.is(page.status, 200);
  assert.match(page.text, /<p class="sandbox" role="alert"><strong>AMBIENTE DE TESTES: dados fictícios<\/strong> · O que esta página mostra contém resultados de sandbox/);

  // Webhooks: every report event from the first sandbox section on says sandboxData (ReportDecided's own sandbox is the offline chair's), sections and decisions their provenance.
  const bodies = await eventually(
    async () => {
      const mine = receiver.json().filter((b) => b.data?.reportId === reportId);
      return events.every((name) => mine.some((b) => b.event === name)) && mine;
    },
    { timeoutMs: 15_000, what: 'the report webhooks' },
  );
  for (const body of bodies) assert.is(body.data.sandboxData, true, body.event);
  for (const body of bodies.filter((b) => b.event === 'report.section.updated')) assert.is(body.data.provenance.sandbox, body.data.sectionType !== 'SANCTIONS', body.data.sectionType);
  assert.equal(bodies.find((b) => b.event === 'report.status.changed').data.provenance, { provider: 'CREDIT_POLICY_ENGINE', sandbox: true });
});

test('every console page of a sandbox deployment shows the banner; /ready names the mode to anyone', async ({ app, browser }) => {
  const list = await browser.get('/console/relatorios');
  assert.match(list.text, /<p class="sandbox" role="alert"><strong>AMBIENTE DE TESTES: dados fictícios<\/strong> · Este serviço roda com DEPLOYMENT=sandbox/);
  assert.equal((await app.call('GET', '/ready')).body, { status: 'ready', deployment: 'sandbox' });
});

test.run();
