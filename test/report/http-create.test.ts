import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY, DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';

const test = suite('POST /v2/report and reading reports');
let app: TestApp;
let tenant: TestTenant;
let other: TestTenant;
const policies: Record<string, string> = {};
const MISSING = '0123456789abcdef01234567';

test.before(async () => {
  app = await startTestApp();
  tenant = await provisionTenant(app);
  other = await provisionTenant(app, { name: 'Other organization' });
  for (const content of [DEMO_CPF_POLICY, DEMO_CNPJ_POLICY]) {
    const reply = await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: content });
    policies[content.documentType] = reply.body.id;
  }
});
test.after(async () => {
  await app?.stop();
});

const post = (body: unknown, token = tenant.token) => app.call('POST', '/v2/report', { token, body });
const eventCount = async () => Number((await app.database.knex('events').count({ n: '*' }))[0]!.n);

test('creation replies at once: PENDING, digits only, readable right away', async () => {
  const reply = await post({ document: '123.456.789-09', type: 'CPF', policyId: policies.cpf, externalId: 'pedido-42' });
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  const body = reply.body;
  assert.match(body.id, /^[0-9a-f]{24}$/);
  assert.equal(body.status, { id: 1, value: 'PENDING', title: 'Não iniciado' });
  assert.is(body.policyStatus, 'PENDING');
  assert.is(body.document, '12345678909');
  assert.is(body.type, 'cpf');
  assert.is(body.policyId, policies.cpf);
  assert.is(body.policyVersion, 1);
  assert.is(body.externalId, 'pedido-42');
  assert.ok(body.createdAt && body.updatedAt);
  const read = await app.call('GET', `/v2/report/${body.id}`, { token: tenant.token });
  assert.is(read.status, 200);
  assert.is(read.body.document, '12345678909');
  const done = await waitForReport(app, tenant.token, body.id);
  for (const field of [
    'yearMonthDay',
    'policyName',
    'organizationId',
    'userId',
    'commentary',
    'previousAnalystId',
    'analystId',
    'analystName',
    'policyErrorStatusApplied',
    'ranWithoutSCRReason',
    'product',
    'verified',
    'exportUrl',
    'exportExcelUrl',
    'parecerEnabled',
    'committeeStatus',
    'committeeDecision',
    'committeeResult',
    'integrationTypes',
  ]) {
    assert.ok(field in done, `Report.${field}`);
  }
  assert.is(done.organizationId, tenant.organizationId);
  assert.is(done.verified, true);
  // SANCTIONS comes from the screening lists, not from the sandbox.
  assert.equal(done.integrationTypes, ['CREDIT_POLICY_ENGINE', 'SANDBOX', 'SCREENING']);
  for (const section of done.sections) {
    for (const field of ['id', 'type', 'parecerStatus', 'parecerScore', 'parecerRiskLevel', 'sectionDetails', 'selectedIntegrations', 'errors', 'integrationCount']) {
      assert.ok(field in section, `Section.${field}`);
    }
    assert.ok(section.type.id > 0 && section.type.title && section.type.value);
  }
  assert.ok(done.reportProgress.steps.every((s: any) => s.status === 'DONE'));
});

test('validation texts, joined by commas', async () => {
  const missing = await post({ policyId: policies.cpf });
  assert.equal(missing.body, { code: 400, message: 'document should not be empty,type must be one of the following values: cpf, cnpj' });
  const empty = await post({});
  assert.is(empty.body.message, 'document should not be empty,type must be one of the following values: cpf, cnpj,policyId should not be empty');
  const badType = await post({ document: '12345678909', type: 'rg', policyId: policies.cpf });
  assert.is(badType.body.message, 'type must be one of the following values: cpf, cnpj');
});

test('document and policy errors of the contract', async () => {
  const cases: Array<[unknown, number, string]> = [
    [{ document: '12345678900', type: 'cpf', policyId: policies.cpf }, 400, Messages.invalidDocument],
    [{ document: '11.222.333/0001-80', type: 'cnpj', policyId: policies.cnpj }, 400, Messages.invalidDocument],
    [{ document: '11111111111', type: 'cpf', policyId: policies.cpf }, 400, Messages.invalidDocument],
    [{ document: '11222333000181', type: 'cpf', policyId: policies.cpf }, 400, Messages.invalidDocumentType],
    [{ document: '12345678909', type: 'cnpj', policyId: policies.cnpj }, 400, Messages.invalidDocumentType],
    [{ document: '12345678909', type: 'cpf', policyId: 'abc' }, 400, Messages.invalidPolicyId],
    [{ document: '12345678909', type: 'cpf', policyId: MISSING }, 404, Messages.policyNotFound],
    [{ document: '12345678909', type: 'cpf', policyId: policies.cnpj }, 422, Messages.policyOtherDocumentType],
  ];
  const before = await eventCount();
  for (const [body, status, message] of cases) {
    const reply = await post(body);
    assert.equal(reply.body, { code: status, message }, JSON.stringify(body));
    assert.is(reply.status, status);
  }
  const otherOrg = await post({ document: '12345678909', type: 'cpf', policyId: policies.cpf }, other.token);
  assert.equal(otherOrg.body, { code: 404, message: Messages.policyNotFound });
  assert.is(await eventCount(), before, 'a refused request appends nothing');
});

test('an archived policy takes no new report', async () => {
  const created = await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: { ...DEMO_CPF_POLICY, name: 'to archive' } });
  await app.call('DELETE', `/credit-policy/policy/${created.body.id}`, { token: tenant.token });
  const reply = await post({ document: '12345678909', type: 'cpf', policyId: created.body.id });
  assert.equal(reply.body, { code: 409, message: Messages.policyArchived });
});

test('reading: 404 Report not found, other organizations, malformed ids, tabType, details=false', async () => {
  const { body } = await post({ document: '11222333000181', type: 'cnpj', policyId: policies.cnpj });
  await waitForReport(app, tenant.token, body.id);
  assert.equal((await app.call('GET', `/v2/report/${MISSING}`, { token: tenant.token })).body, { code: 404, message: 'Report not found' });
  assert.equal((await app.call('GET', `/v2/report/${body.id}`, { token: other.token })).body, { code: 404, message: 'Report not found' });
  assert.is((await app.call('GET', '/v2/report/123', { token: tenant.token })).status, 400);
  assert.is((await app.call('GET', `/v2/report/${body.id}`)).status, 401);

  const protests = await app.call('GET', `/v2/report/${body.id}?tabType=PROTESTS`, { token: tenant.token });
  assert.equal(
    protests.body.sections.map((s: any) => s.type.value),
    ['PROTESTS'],
  );
  assert.is(protests.body.sections[0].sectionDetails.bureau.protestsQuantity, 0);
  const lean = await app.call('GET', `/v2/report/${body.id}?details=false`, { token: tenant.token });
  assert.ok(lean.body.sections.length > 5);
  assert.ok(lean.body.sections.every((s: any) => !('sectionDetails' in s)));
  const bad = await app.call('GET', `/v2/report/${body.id}?tabType=NOPE`, { token: tenant.token });
  assert.is(bad.status, 400);
  assert.match(bad.body.message, /^tabType must be one of the following values: SUMMARY/);
});

test('sections by id and by type', async () => {
  const { body } = await post({ document: '12345678909', type: 'cpf', policyId: policies.cpf });
  const report = await waitForReport(app, tenant.token, body.id);
  const summary = report.sections.find((s: any) => s.type.value === 'SUMMARY');
  const byId = await app.call('GET', `/report/section/${summary.id}`, { token: tenant.token });
  assert.is(byId.status, 200);
  assert.is(byId.body.reportId, body.id);
  assert.is(byId.body.isFinalized, true);
  assert.is(byId.body.sectionDetails.decision, 'APPROVED');
  assert.is(byId.body.metadata.policyStatus, 'APPROVED');
  const byType = await app.call('GET', `/report/${body.id}/section/protests`, { token: tenant.token });
  assert.is(byType.body.type.value, 'PROTESTS');
  assert.equal((await app.call('GET', `/report/section/${summary.id}`, { token: other.token })).body, { code: 404, message: Messages.sectionNotFound });
  assert.is((await app.call('GET', '/report/section/xyz', { token: tenant.token })).status, 400);
  assert.is((await app.call('GET', `/report/${body.id}/section/NOPE`, { token: tenant.token })).status, 400);
  const notInCpf = await app.call('GET', `/report/${body.id}/section/BALANCE_SHEET`, { token: tenant.token });
  assert.equal(notInCpf.body, { code: 404, message: Messages.sectionNotFound });
  assert.equal((await app.call('GET', `/report/${MISSING}/section/SCR`, { token: tenant.token })).body, { code: 404, message: 'Report not found' });
});

test('an organization without scr: SCR skipped, with the reason', async () => {
  const noScr = await provisionTenant(app, { name: 'No SCR', modules: ['reports'] });
  const policy = await app.call('POST', '/credit-policy/policy', { token: noScr.token, body: DEMO_CPF_POLICY });
  const { body } = await post({ document: '12345678909', type: 'cpf', policyId: policy.body.id }, noScr.token);
  const report = await waitForReport(app, noScr.token, body.id);
  assert.ok(report.ranWithoutSCRReason);
  assert.not.ok(report.sections.some((s: any) => s.type.value === 'SCR'));
  assert.is(report.reportProgress.steps.find((s: any) => s.type === 'SCR').status, 'SKIPPED');
  assert.is(report.policyStatus, 'APPROVED');
});

test('gates: reports module and a report permission', async () => {
  const noModule = await provisionTenant(app, { name: 'No reports', modules: ['proposals'] });
  assert.equal((await post({ document: '12345678909', type: 'cpf', policyId: policies.cpf }, noModule.token)).body, { code: 403, message: Messages.forbidden });
  const noPermission = await provisionTenant(app, { name: 'No permission', permissions: ['can-manage-settings'] });
  assert.is((await post({ document: '12345678909', type: 'cpf', policyId: policies.cpf }, noPermission.token)).status, 403);
  assert.is((await app.call('GET', `/v2/report/${MISSING}`, { token: noPermission.token })).status, 403);
});

test.run();
