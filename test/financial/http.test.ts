import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { waitForReport } from '../support/report.ts';
import { KNOWN, PLAIN_LAYOUT, pdfkitStatements, pdfLibStatements } from '../support/financial-statements.ts';
import { uploadAll } from '../financial-upload/support.ts';
import { setUserEmail } from '../../application/identity/provisioning-commands.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  receiver: Receiver;
  smtp: SmtpReceiver;
  policyId: string;
  /** The demo policy as is: no BALANCE_SHEET among its sections. */
  plainPolicyId: string;
}
const test = suite<Ctx>('financial statements: upload over HTTP, extraction, BALANCE_SHEET and registry.financial.extracted');

test.before(async (ctx) => {
  ctx.smtp = await startSmtpReceiver();
  ctx.app = await startTestApp({ SMTP_URL: ctx.smtp.url });
  ctx.tenant = await provisionTenant(ctx.app);
  await setUserEmail(ctx.app.app, ctx.tenant.userId, 'analista@banco.example');
  ctx.receiver = await startReceiver();
  const sub = await ctx.app.call('POST', '/v1/webhook/subscriptions', { token: ctx.tenant.token, body: { url: ctx.receiver.url, events: ['registry.financial.extracted'] } });
  assert.is(sub.status, 201, JSON.stringify(sub.body));
  const policy = await ctx.app.call('POST', '/credit-policy/policy', { token: ctx.tenant.token, body: { ...DEMO_CNPJ_POLICY, sections: [...DEMO_CNPJ_POLICY.sections, 'BALANCE_SHEET'] } });
  ctx.policyId = policy.body.id;
  ctx.plainPolicyId = (await ctx.app.call('POST', '/credit-policy/policy', { token: ctx.tenant.token, body: DEMO_CNPJ_POLICY })).body.id;
});
test.after(async (ctx) => {
  await ctx.receiver?.close();
  await ctx.app?.stop();
  await ctx.smtp?.close();
});

/** The statements' first row: the company they are of, as the registry's analysis requires. */
const NAMED = 'Empresa Exemplo Ltda - CNPJ 11.222.333/0001-81';

const call = (ctx: Ctx, method: string, path: string, body?: unknown) => ctx.app.call(method, path, { token: ctx.tenant.token, body });

async function finishedReport(ctx: Ctx, document: string, policyId = ctx.policyId): Promise<string> {
  const created = await call(ctx, 'POST', '/v2/report', { document, type: 'cnpj', policyId });
  assert.is(created.status, 200, JSON.stringify(created.body));
  await waitForReport(ctx.app, ctx.tenant.token, created.body.id);
  return created.body.id;
}

async function complete(ctx: Ctx, reportId: string, files: Array<{ name: string; bytes: Buffer }>) {
  const keys = await uploadAll(ctx.app, ctx.tenant, reportId, files);
  const reply = await call(ctx, 'POST', `/report/${reportId}/financial-tab/complete`, { keys });
  assert.is(reply.status, 200, JSON.stringify(reply.body));
}

/** The e-mail the user who sent a batch gets when its extraction ends (one per batch). */
const noticeOf = (ctx: Ctx, reportId: string, count = 1) =>
  eventually(
    async () => {
      const mails = ctx.smtp.mails.filter((mail) => mail.text?.includes(`relatório ${reportId}`));
      return mails.length >= count && mails;
    },
    { timeoutMs: 30_000, what: `financial statements e-mail for ${reportId}` },
  );

/** The BALANCE_SHEET section once a batch's outcome replaced what the sandbox source wrote. */
const extractedSection = (ctx: Ctx, reportId: string) =>
  eventually(
    async () => {
      const reply = await call(ctx, 'GET', `/report/${reportId}/section/BALANCE_SHEET`);
      return reply.body.selectedIntegrations?.includes('FINANCIAL_STATEMENTS') && reply.body;
    },
    { timeoutMs: 30_000, what: 'BALANCE_SHEET extracted' },
  );

test('two PDFs of three years: one analysis in the section, the report lists FINANCIAL_STATEMENTS, the registry holds both files, the webhook has exactly the contract fields', async (ctx) => {
  const reportId = await finishedReport(ctx, '11.222.333/0001-81');
  const older = { '2023-12-31': KNOWN['2023-12-31']!, '2022-12-31': { ...KNOWN['2023-12-31']!, netIncome: 1_000_000 } };
  await complete(ctx, reportId, [
    { name: 'balanco-2024.pdf', bytes: await pdfkitStatements(KNOWN, { ...PLAIN_LAYOUT, heading: NAMED }) },
    { name: 'balanco-2022.pdf', bytes: await pdfLibStatements(older, { ...PLAIN_LAYOUT, scale: 1000, dates: 'year', heading: NAMED }) },
  ]);
  const section = await extractedSection(ctx, reportId);
  const details = section.sectionDetails;
  assert.equal(
    [section.status, section.errors, details.source, details.referenceYear, details.revenueCents, details.netIncomeCents],
    ['DONE', [], 'FINANCIAL_STATEMENTS', 2024, 550_000_000, 30_000_000],
  );
  assert.equal(
    details.periods.map((p: { periodEnd: string }) => p.periodEnd),
    ['2024-12-31', '2023-12-31', '2022-12-31'],
  );
  assert.equal(details.periods[0].values, KNOWN['2024-12-31']);
  assert.is(details.periods[2].values.netIncome, 1_000_000);
  assert.is(details.periods[0].ratios.liquidezCorrente, 1.5);
  assert.equal(details.unread, []);
  assert.is(details.model, null, 'every core line was read: the model was not asked');
  const report = await call(ctx, 'GET', `/v2/report/${reportId}`);
  assert.ok(report.body.integrationTypes.includes('FINANCIAL_STATEMENTS'), JSON.stringify(report.body.integrationTypes));

  const hook = await eventually(async () => ctx.receiver.json().find((h) => h.event === 'registry.financial.extracted'), { timeoutMs: 30_000, what: 'registry.financial.extracted' });
  assert.equal(Object.keys(hook.data).sort(), ['attempt', 'latestPeriodAt', 'periodCount', 'periods', 'registryDocumentId', 'registryId']);
  assert.equal([hook.organizationId, hook.data.attempt, hook.data.periodCount, hook.data.latestPeriodAt], [ctx.tenant.organizationId, 1, 3, '2024-12-31T00:00:00.000Z']);
  assert.equal(hook.data.periods[0], { periodEnd: '2024-12-31', values: KNOWN['2024-12-31'], ratios: details.periods[0].ratios, missing: ['longTermReceivables'] });

  const documents = await eventually(
    async () => {
      const reply = await call(ctx, 'GET', `/v1/registry/${hook.data.registryId}/documents`);
      return reply.body.length === 2 && reply.body.every((d: { status: string }) => d.status === 'VALIDATED') && reply.body;
    },
    { timeoutMs: 30_000, what: 'both statements registered and validated' },
  );
  assert.equal(documents.map((d: { fileName: string; opinion: { type: string } }) => [d.fileName, d.opinion.type]).sort(), [
    ['balanco-2022.pdf', 'DEMONSTRACOES_FINANCEIRAS'],
    ['balanco-2024.pdf', 'DEMONSTRACOES_FINANCEIRAS'],
  ]);
  assert.ok(
    documents.some((d: { id: string }) => d.id === hook.data.registryDocumentId),
    'the webhook names one of them',
  );
  assert.equal(details.periods[0].registryDocumentIds, [hook.data.registryDocumentId]);

  const [mail] = await noticeOf(ctx, reportId);
  assert.equal(mail!.to && 'value' in mail!.to ? mail!.to.value.map((a) => a.address) : [], ['analista@banco.example']);
  assert.match(mail!.subject ?? '', /^Demonstrações financeiras de .+ processadas$/);
  for (const text of ['11.222.333/0001-81', 'balanco-2024.pdf', 'balanco-2022.pdf', 'Períodos lidos:\n- 31/12/2024\n- 31/12/2023\n- 31/12/2022'])
    assert.ok(mail!.text!.includes(text), `${text} in ${mail!.text}`);
  assert.ok(mail!.html && mail!.html.includes('<li>31/12/2024</li>'));
  assert.ok(mail!.text!.includes(`Abrir o relatório: ${ctx.app.app.config.PUBLIC_BASE_URL}/console/relatorios/${reportId}`), mail!.text);
});

test('a PDF with no statement in it: the section ends in ERROR with the reason, and no webhook', async (ctx) => {
  const reportId = await finishedReport(ctx, '11.444.777/0001-61');
  const before = ctx.receiver.json().length;
  await complete(ctx, reportId, [{ name: 'carta.pdf', bytes: await pdfLibStatements({}, PLAIN_LAYOUT) }]);
  const section = await extractedSection(ctx, reportId);
  assert.equal([section.status, section.sectionDetails, section.errors[0].code, section.errors[0].integrationType], ['ERROR', null, 'INTEGRATION_NO_DATA', 'FINANCIAL_STATEMENTS']);
  assert.is(ctx.receiver.json().length, before);
  const [mail] = await noticeOf(ctx, reportId);
  assert.match(mail!.subject ?? '', /^Não foi possível ler as demonstrações financeiras de /);
  assert.ok(mail!.text!.includes(`não puderam ser lidas: ${section.errors[0].message}`), mail!.text);
  assert.ok(mail!.text!.includes('carta.pdf'));
});

async function multipart(ctx: Ctx, reportId: string, files: Array<{ name: string; bytes: Buffer }>) {
  const form = new FormData();
  for (const file of files) form.append('files', new Blob([new Uint8Array(file.bytes)], { type: 'application/pdf' }), file.name);
  const reply = await fetch(`${ctx.app.url}/report/${reportId}/financial-tab`, { method: 'POST', body: form, headers: { authorization: `Bearer ${ctx.tenant.token}` } });
  assert.is(reply.status, 200, await reply.text());
}

const only = (keys: string[]) => Object.fromEntries(Object.entries(KNOWN).map(([period, values]) => [period, Object.fromEntries(Object.entries(values).filter(([k]) => keys.includes(k)))]));
const BALANCE = ['currentAssets', 'cash', 'inventories', 'nonCurrentAssets', 'totalAssets', 'currentLiabilities', 'nonCurrentLiabilities', 'equity', 'totalLiabilitiesAndEquity'];

test('multipart, balance sheet and income statement in separate files, policy without BALANCE_SHEET: the section is created, a second batch replaces it in place', async (ctx) => {
  const reportId = await finishedReport(ctx, '11.222.333/0001-81', ctx.plainPolicyId);
  const income = Object.keys(KNOWN['2024-12-31']!).filter((k) => !BALANCE.includes(k));
  await multipart(ctx, reportId, [
    { name: 'balanco.pdf', bytes: await pdfkitStatements(only(BALANCE), { ...PLAIN_LAYOUT, sideBySide: true, codes: true }) },
    { name: 'dre.pdf', bytes: await pdfLibStatements(only(income), { ...PLAIN_LAYOUT, scale: 1000, notes: true }) },
  ]);
  const first = await extractedSection(ctx, reportId);
  assert.equal(
    first.sectionDetails.periods.map((p: { values: unknown }) => p.values),
    [KNOWN['2024-12-31'], KNOWN['2023-12-31']],
  );
  assert.equal(
    first.sectionDetails.files.map((f: { fileName: string; periods: string[] }) => [f.fileName, f.periods]),
    [
      ['balanco.pdf', ['2024-12-31', '2023-12-31']],
      ['dre.pdf', ['2024-12-31', '2023-12-31']],
    ],
  );
  const report = await call(ctx, 'GET', `/v2/report/${reportId}`);
  assert.equal(report.body.sections.filter((s: { type: { value: string } }) => s.type.value === 'BALANCE_SHEET').length, 1);

  await multipart(ctx, reportId, [{ name: 'balanco-2025.pdf', bytes: await pdfLibStatements({ '2025-12-31': KNOWN['2024-12-31']! }, PLAIN_LAYOUT) }]);
  const second = await eventually(
    async () => {
      const reply = await call(ctx, 'GET', `/report/${reportId}/section/BALANCE_SHEET`);
      return reply.body.sectionDetails?.referenceYear === 2025 && reply.body;
    },
    { timeoutMs: 30_000, what: 'the second batch extracted' },
  );
  assert.is(second.id, first.id, 'the same section, replaced');
  assert.not.equal(second.sectionDetails.batchId, first.sectionDetails.batchId);
  // The multipart route sends the same e-mail as the direct upload, one per batch.
  const mails = await noticeOf(ctx, reportId, 2);
  assert.equal(mails.map((mail) => mail.text!.includes('- 31/12/2025')).sort(), [false, true]);
  assert.ok(mails.every((mail) => /^Demonstrações financeiras de .+ processadas$/.test(mail.subject ?? '')));
});

test.run();
