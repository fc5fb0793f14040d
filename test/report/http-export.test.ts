import ExcelJS from 'exceljs';
import { readPdfText } from '../../platform/pdf-text.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { exportReport, DEFAULT_RENDERERS } from '../../application/report/export/commands.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { exportableOf } from '../../http/report/present.ts';
import { findReport } from '../../projections/report/queries.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { formatBRL } from '../../domain/shared/money.ts';

const test = suite('report export');
let app: TestApp;
let tenant: TestTenant;
let reportId: string;
/** The report as GET /v2/report/{id} gives it, to compare the files with. */
let report: any;

test.before(async () => {
  app = await startTestApp();
  tenant = await provisionTenant(app);
  const policyId = (await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: DEMO_CNPJ_POLICY })).body.id;
  reportId = (await app.call('POST', '/v2/report', { token: tenant.token, body: { document: '10000001000190', type: 'cnpj', policyId, externalId: 'pedido-77' } })).body.id;
  report = await waitForReport(app, tenant.token, reportId);
});
test.after(async () => {
  await app?.stop();
});

/** The signed link names PUBLIC_BASE_URL; the test service listens elsewhere. */
const download = (url: string) => fetch(app.url + new URL(url).pathname + new URL(url).search);

const details = (type: string) => report.sections.find((s: any) => s.type.value === type).sectionDetails;
/** What a Brazilian reader expects, computed here without the service's own helpers. */
const two = (n: number) => String(n).padStart(2, '0');
/** dd/mm/aaaa hh:mm in Brasília, UTC-3 all year since 2019. */
function brasilia(iso: string): string {
  const d = new Date(Date.parse(iso) - 3 * 3_600_000);
  return `${two(d.getUTCDate())}/${two(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
}
const dayOf = (isoDay: string) => isoDay.split('-').reverse().join('/');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

test('PDF: a signed link that works without a bearer, and exportUrl on the report', async () => {
  const reply = await app.call('POST', `/report/${reportId}/export`, { token: tenant.token, body: { format: 'pdf' } });
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.is(reply.body.fileName, `relatorio-${reportId}.pdf`);
  const file = await download(reply.body.url);
  assert.is(file.status, 200);
  assert.is(file.headers.get('content-type'), 'application/pdf');
  const bytes = Buffer.from(await file.arrayBuffer());
  assert.is(bytes.subarray(0, 5).toString(), '%PDF-');
  const text = (await readPdfText(bytes))!.text;
  // A sandbox report (the sandbox sources answered): the mark heads every page.
  assert.ok(text.includes('AMBIENTE DE TESTES: dados fictícios'));
  assert.match(text, /Relatório de análise de crédito/);
  assert.match(text, /CNPJ 10\.000\.001\/0001-90/);
  assert.match(text, /No máximo 2 protestos Não atendida/);
  assert.match(text, /Identificador externo pedido-77/);
  assert.match(text, /Página 1 de \d+/);
  assert.match(text, /Gerado em \d{2}\/\d{2}\/\d{4} \d{2}:\d{2} \(horário de Brasília\)/);

  const report = (await app.call('GET', `/v2/report/${reportId}`, { token: tenant.token })).body;
  assert.ok(report.exportUrl);
  assert.is(report.exportExcelUrl, null);
  assert.is((await download(report.exportUrl)).status, 200);
});

test('PDF: the decision and its reasons first, then the subject and sections in Portuguese, R$ and pt-BR dates', async () => {
  const { url } = (await app.call('POST', `/report/${reportId}/export`, { token: tenant.token, body: { format: 'pdf' } })).body;
  const text = (await readPdfText(Buffer.from(await (await download(url)).arrayBuffer())))!.text;
  const at = (fragment: string) => {
    const i = text.indexOf(fragment);
    assert.ok(i >= 0, `PDF has ${fragment}`);
    return i;
  };
  const reason = 'Regra "No máximo 2 protestos" não atendida: nega.';
  assert.ok(at('DECISÃO\nNegado') < at('Motivos da decisão'));
  assert.ok(at('Motivos da decisão') < at(reason));
  assert.ok(at(reason) < at('Identificação'));
  assert.ok(at('Identificação') < at('Razão social'), 'sections come after the decision');
  assert.ok(at('Resultado da política: Negado') < at('Razão social'));

  const basic = details('BASIC_INFORMATION');
  const protests = details('PROTESTS').bureau;
  assert.match(text, new RegExp(`Solicitado em ${brasilia(report.createdAt)}`));
  assert.match(text, new RegExp(`Finalizado em ${brasilia(report.reportProgress.finalizedAt)}`));
  assert.match(text, new RegExp(`Razão social ${escape(basic.name)}`));
  assert.match(text, new RegExp(`Capital social ${escape(formatBRL(basic.shareCapitalCents))}`));
  assert.match(text, /Capital social R\$ \d{1,3}(\.\d{3})*,\d{2}\n/);
  assert.match(text, new RegExp(`Data de abertura ${dayOf(basic.foundedAt)}`));
  assert.match(text, new RegExp(`Valor total protestado ${escape(formatBRL(protests.protestsAmountCents))}`));
  assert.match(text, new RegExp(`Valor ${escape(formatBRL(protests.protests[0].amountCents))}`));
  assert.match(text, new RegExp(`Data ${dayOf(protests.protests[0].date)}`));
  for (const label of ['Quantidade de protestos', 'Cartório', 'Situação cadastral', 'Natureza jurídica', 'Logradouro', 'CEP', 'Todas negativas Sim', 'Possui sanções Não']) {
    assert.ok(text.includes(label), label);
  }
  assert.not.match(text, /protestsQuantity|amountCents|shareCapitalCents|sectionDetails|\{"|":/, 'no raw keys or JSON');
});

test('XLSX: typed cells (money, integers, dates, booleans), Portuguese headers, frozen header row', async () => {
  const reply = await app.call('POST', `/report/${reportId}/export`, { token: tenant.token, body: { format: 'xlsx' } });
  assert.is(reply.status, 200);
  const file = await download(reply.body.url);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(await file.arrayBuffer());
  assert.equal(
    workbook.worksheets.map((w) => w.name),
    ['Resumo', 'Regras', 'Seções'],
  );
  const headers: Record<string, string[]> = { Resumo: ['Campo', 'Valor'], Regras: ['Grupo', 'Regra', 'Resultado', 'Se não atendida', 'Dados lidos'], Seções: ['Seção', 'Situação', 'Campo', 'Valor'] };
  for (const sheet of workbook.worksheets) {
    // A sandbox report: the mark in a first row above the headers, frozen with them.
    assert.is(sheet.getCell('A1').value, 'AMBIENTE DE TESTES: dados fictícios', sheet.name);
    assert.equal((sheet.getRow(2).values as unknown[]).slice(1), headers[sheet.name], sheet.name);
    assert.is(sheet.views[0]?.state, 'frozen', sheet.name);
    assert.is((sheet.views[0] as { ySplit?: number }).ySplit, 2, sheet.name);
    for (const column of sheet.columns) assert.ok((column.width ?? 0) >= 10, `${sheet.name} column width`);
  }

  /** The value cell of the row whose label column says `label`. */
  const cell = (sheetName: string, label: string, labelColumn: number, valueColumn: number) => {
    const sheet = workbook.getWorksheet(sheetName)!;
    const rows = sheet.getRows(3, sheet.rowCount - 2)!.filter((row) => row.getCell(labelColumn).value === label);
    assert.is(rows.length, 1, `${sheetName}: one row ${label}`);
    return rows[0]!.getCell(valueColumn);
  };
  const summary = (label: string) => cell('Resumo', label, 1, 2);
  const section = (label: string) => cell('Seções', label, 3, 4);

  assert.is(summary('Decisão').value, 'Negado');
  const reasons = workbook
    .getWorksheet('Resumo')!
    .getRows(3, 40)!
    .filter((row) => row.getCell(1).value === 'Motivo')
    .map((row) => row.getCell(2).value);
  assert.equal(reasons, details('CREDIT_POLICY').reasons);
  const score = summary('Pontuação');
  assert.is(score.type, ExcelJS.ValueType.Number);
  assert.is(score.value, report.score);
  assert.ok(Number.isInteger(score.value));
  assert.is(score.numFmt, '0');
  const created = summary('Solicitado em');
  assert.is(created.type, ExcelJS.ValueType.Date);
  assert.is(created.numFmt, 'dd/mm/yyyy hh:mm');
  // Excel dates carry no zone: the cell holds the time a clock in Brasília showed.
  const minute = (ms: number) => Math.floor(ms / 60_000);
  assert.is(minute((created.value as Date).getTime()), minute(Date.parse(report.createdAt) - 3 * 3_600_000));
  assert.is(summary('CNPJ').value, '10.000.001/0001-90');

  const basic = details('BASIC_INFORMATION');
  const capital = section('Capital social');
  assert.is(capital.type, ExcelJS.ValueType.Number);
  assert.is(capital.value, basic.shareCapitalCents / 100);
  assert.is(capital.numFmt, '"R$" #,##0.00');
  const founded = section('Data de abertura');
  assert.is(founded.type, ExcelJS.ValueType.Date);
  assert.is(founded.numFmt, 'dd/mm/yyyy');
  assert.is((founded.value as Date).toISOString().slice(0, 10), basic.foundedAt);
  const quantity = section('Cartórios de protesto › Quantidade de protestos');
  assert.is(quantity.type, ExcelJS.ValueType.Number);
  assert.is(quantity.value, 5);
  const allClear = section('Todas negativas');
  assert.is(allClear.type, ExcelJS.ValueType.Boolean);
  assert.is(allClear.value, true);
  assert.is(section('Possui sanções').value, false);
  const month = section('Mês de referência');
  assert.is(month.type, ExcelJS.ValueType.Date);
  assert.is(month.numFmt, 'mm/yyyy');

  const rules = workbook.getWorksheet('Regras')!;
  const values = rules.getSheetValues().flat().map(String);
  assert.ok(values.includes('No máximo 2 protestos'));
  assert.ok(values.includes('Não atendida'));
  assert.ok(values.some((v) => v.includes('Protestos › Cartórios de protesto › Quantidade de protestos = 5')));
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
  assert.is(failed[0]!.data.externalId, 'pedido-77');
  const exported = events.filter((e) => e.type === 'ReportExported');
  assert.ok(exported.length >= 2);
  for (const key of ['reportId', 'document', 'type', 'status', 'policyStatus', 'score', 'externalId', 'url']) assert.ok(key in exported[0]!.data, key);
});

test("PDF after a manual analysis: the analyst's decision and opinion lead", async () => {
  const analysis = await app.call('POST', '/report/analyze', { token: tenant.token, body: { id: reportId, approved: true, commentary: 'Garantia real apresentada.' } });
  assert.is(analysis.status, 200, JSON.stringify(analysis.body));
  const { url } = (await app.call('POST', `/report/${reportId}/export`, { token: tenant.token, body: { format: 'pdf' } })).body;
  const text = (await readPdfText(Buffer.from(await (await download(url)).arrayBuffer())))!.text;
  const decision = text.slice(0, text.indexOf('Motivos da decisão'));
  assert.match(decision, /DECISÃO\nAprovado\n/);
  assert.match(decision, /Resultado da política: Aprovado/);
  assert.match(decision, new RegExp(`Analista: ${escape(analysis.body.analystName)}`));
  assert.match(decision, /Parecer do analista: Garantia real apresentada\./);
});

test.run();
