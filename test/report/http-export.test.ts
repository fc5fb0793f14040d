import ExcelJS from 'exceljs';
import { PDFParse } from 'pdf-parse';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { exportReport, DEFAULT_RENDERERS } from '../../application/report/export/export-report.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { exportableOf } from '../../http/report/present.ts';
import { findReport } from '../../projections/report/queries.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';

const test = suite('report export');
let app: TestApp;
let tenant: TestTenant;
let reportId: string;

test.before(async () => {
  app = await startTestApp();
  tenant = await provisionTenant(app);
  const policyId = (await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: DEMO_CNPJ_POLICY })).body.id;
  reportId = (await app.call('POST', '/v2/report', { token: tenant.token, body: { document: '10000001000190', type: 'cnpj', policyId } })).body.id;
  await waitForReport(app, tenant.token, reportId);
});
test.after(async () => {
  await app?.stop();
});

/** The signed link names PUBLIC_BASE_URL; the test service listens elsewhere. */
const download = (url: string) => fetch(app.url + new URL(url).pathname + new URL(url).search);

test('PDF: a signed link that works without a bearer, and exportUrl on the report', async () => {
  const reply = await app.call('POST', `/report/${reportId}/export`, { token: tenant.token, body: { format: 'pdf' } });
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.is(reply.body.fileName, `relatorio-${reportId}.pdf`);
  const file = await download(reply.body.url);
  assert.is(file.status, 200);
  assert.is(file.headers.get('content-type'), 'application/pdf');
  const bytes = Buffer.from(await file.arrayBuffer());
  assert.is(bytes.subarray(0, 5).toString(), '%PDF-');
  const text = (await new PDFParse({ data: bytes }).getText()).text;
  assert.match(text, /CNPJ 10000001000190/);
  assert.match(text, /Negado \(DENIED\)/);
  assert.match(text, /No máximo 2 protestos: Não atendida/);

  const report = (await app.call('GET', `/v2/report/${reportId}`, { token: tenant.token })).body;
  assert.ok(report.exportUrl);
  assert.is(report.exportExcelUrl, null);
  assert.is((await download(report.exportUrl)).status, 200);
});

test('XLSX: summary, rules and sections sheets', async () => {
  const reply = await app.call('POST', `/report/${reportId}/export`, { token: tenant.token, body: { format: 'xlsx' } });
  assert.is(reply.status, 200);
  const file = await download(reply.body.url);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(await file.arrayBuffer());
  assert.equal(workbook.worksheets.map((w) => w.name), ['Resumo', 'Regras', 'Seções']);
  const rules = workbook.getWorksheet('Regras')!;
  const values = rules.getSheetValues().flat().map(String);
  assert.ok(values.includes('No máximo 2 protestos'));
  assert.ok(values.includes('Não atendida'));
  assert.ok((await app.call('GET', `/v2/report/${reportId}`, { token: tenant.token })).body.exportExcelUrl);
});

test('a tampered or expired link is refused', async () => {
  const { url } = (await app.call('POST', `/report/${reportId}/export`, { token: tenant.token, body: { format: 'pdf' } })).body;
  const tampered = url.replace(/signature=[^&]+/, 'signature=AAAA');
  assert.is((await download(tampered)).status, 403);
  const later = url.replace(/expires=(\d+)/, (_: string, n: string) => `expires=${Number(n) + 1}`);
  assert.is((await download(later)).status, 403, 'the expiry is signed');
  const body = await (await download(tampered)).json();
  assert.equal(body, { code: 403, message: Messages.downloadLinkInvalid });
});

test('export errors: unknown report, other organization, bad format', async () => {
  const other = await provisionTenant(app, { name: 'Other' });
  assert.equal((await app.call('POST', `/report/${reportId}/export`, { token: other.token, body: { format: 'pdf' } })).body, { code: 404, message: 'Report not found' });
  const bad = await app.call('POST', `/report/${reportId}/export`, { token: tenant.token, body: { format: 'doc' } });
  assert.equal(bad.body, { code: 400, message: 'format must be one of the following values: pdf, xlsx' });
});

test('a failed export is recorded (ReportExportFailed) and answered 502', async () => {
  const found = (await findReport(app.app.db, tenant.organizationId, reportId))!;
  const failing = { ...DEFAULT_RENDERERS, pdf: async () => Promise.reject(new Error('font missing')) };
  try {
    await exportReport(app.app, { organizationId: tenant.organizationId, userId: tenant.userId }, exportableOf(found), 'pdf', { renderers: failing });
    assert.unreachable('should fail');
  } catch (error) {
    assert.instance(error, DomainError);
    assert.is((error as DomainError).kind, 'upstream');
    assert.is((error as DomainError).message, Messages.reportExportFailed);
  }
  const events = await app.app.store.readStream(`report-${reportId}`);
  const failed = events.filter((e) => e.type === 'ReportExportFailed');
  assert.is(failed.length, 1);
  assert.is(failed[0]!.data.format, 'pdf');
  assert.is(failed[0]!.data.externalId, null);
  const exported = events.filter((e) => e.type === 'ReportExported');
  assert.ok(exported.length >= 2);
  for (const key of ['reportId', 'document', 'type', 'status', 'policyStatus', 'score', 'externalId', 'url']) assert.ok(key in exported[0]!.data, key);
});

test.run();
