import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';

const test = suite('manual analysis through HTTP');
let app: TestApp;
let tenant: TestTenant;
let policyId: string;

test.before(async () => {
  app = await startTestApp();
  tenant = await provisionTenant(app, { userName: 'Ana Analista' } as never);
  policyId = (await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: DEMO_CPF_POLICY })).body.id;
});
test.after(async () => {
  await app?.stop();
});

async function decidedReport(document = '10000000280'): Promise<string> {
  const { body } = await app.call('POST', '/v2/report', { token: tenant.token, body: { document, type: 'cpf', policyId } });
  await waitForReport(app, tenant.token, body.id);
  return body.id;
}
const analyze = (path: string, body: unknown, token = tenant.token) => app.call('POST', path, { token, body });

test('analyze, then re-analyze: commentary replaced, analyst recorded, every decision kept', async () => {
  const id = await decidedReport();
  const first = await analyze('/report/analyze', { id, approved: true, commentary: 'Pefin quitado, comprovante anexado.' });
  assert.is(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.status, { id: 3, value: 'APPROVED', title: 'Aprovado' });
  assert.is(first.body.policyStatus, 'APPROVED');
  assert.is(first.body.analystId, tenant.userId);
  assert.is(first.body.commentary, 'Pefin quitado, comprovante anexado.');
  assert.equal(Object.keys(first.body).sort(), ['analystId', 'analystName', 'commentary', 'id', 'policyStatus', 'status', 'updatedAt']);

  const redo = await analyze('/report/re-analyze', { id, approved: false, commentary: 'Comprovante falso.' });
  assert.is(redo.status, 200);
  assert.equal(redo.body.status, { id: 4, value: 'DENIED', title: 'Negado' });
  assert.is(redo.body.policyStatus, 'DENIED');
  assert.is(redo.body.commentary, 'Comprovante falso.');

  const report = (await app.call('GET', `/v2/report/${id}`, { token: tenant.token })).body;
  assert.is(report.status.value, 'DENIED');
  assert.is(report.previousAnalystId, tenant.userId);
  assert.is(report.commentary, 'Comprovante falso.');

  const history = (await app.call('GET', `/report/${id}/decisions`, { token: tenant.token })).body;
  assert.equal(
    history.map((d: any) => [d.kind, d.decision]),
    [
      ['AUTOMATIC', 'MANUAL_ANALYSIS'],
      ['MANUAL_ANALYSIS', 'APPROVED'],
      ['MANUAL_REANALYSIS', 'DENIED'],
    ],
  );
});

test('409s: re-analyze before any manual analysis, analyze twice, analyze while processing', async () => {
  const id = await decidedReport('12345678909');
  assert.equal((await analyze('/report/re-analyze', { id, approved: false, commentary: 'x' })).body, { code: 409, message: Messages.manualAnalysisMissing });
  await analyze('/report/analyze', { id, approved: false, commentary: 'x' });
  assert.equal((await analyze('/report/analyze', { id, approved: true, commentary: 'y' })).body, { code: 409, message: Messages.manualAnalysisExists });

  // A report still waiting on a slow source cannot be analyzed yet.
  const slow = await startTestApp({ SOURCE_TIMEOUT_MS: '60000' });
  try {
    const t = await provisionTenant(slow);
    const pid = (await slow.call('POST', '/credit-policy/policy', { token: t.token, body: DEMO_CPF_POLICY })).body.id;
    const { body } = await slow.call('POST', '/v2/report', { token: t.token, body: { document: '10000000361', type: 'cpf', policyId: pid } });
    const reply = await slow.call('POST', '/report/analyze', { token: t.token, body: { id: body.id, approved: true, commentary: 'x' } });
    assert.equal(reply.body, { code: 409, message: Messages.reportStillProcessing });
  } finally {
    await slow.stop();
  }
});

test('validation, unknown and foreign reports', async () => {
  const id = await decidedReport('12345678909');
  const empty = await analyze('/report/re-analyze', {});
  assert.equal(empty.body, { code: 400, message: 'id should not be empty,approved should not be empty,commentary should not be empty' });
  const types = await analyze('/report/re-analyze', { id, approved: 'yes', commentary: 5 });
  assert.equal(types.body, { code: 400, message: 'approved must be a boolean value,commentary must be a string' });
  assert.equal((await analyze('/report/analyze', { id: 'xyz', approved: true, commentary: 'x' })).body, { code: 400, message: 'id must be a mongodb id' });
  const missing = await analyze('/report/analyze', { id: '0123456789abcdef01234567', approved: true, commentary: 'x' });
  assert.equal(missing.body, { code: 404, message: Messages.reportNotFound });
  const other = await provisionTenant(app, { name: 'Other' });
  assert.equal((await analyze('/report/analyze', { id, approved: true, commentary: 'x' }, other.token)).body, { code: 404, message: Messages.reportNotFound });
});

test('403 Usuário não tem permissão para refazer análise manual.', async () => {
  const id = await decidedReport('12345678909');
  await analyze('/report/analyze', { id, approved: true, commentary: 'ok' });
  const limited = await provisionTenant(app, { name: 'Analyst without redo', permissions: ['can-generate-report', 'can-analyze-report'] });
  const reply = await analyze('/report/re-analyze', { id, approved: false, commentary: 'x' }, limited.token);
  assert.equal(reply.body, { code: 403, message: Messages.reanalyzeForbidden });
  const readOnly = await provisionTenant(app, { name: 'Reader', permissions: ['can-generate-report'] });
  assert.equal((await analyze('/report/analyze', { id, approved: false, commentary: 'x' }, readOnly.token)).body, { code: 403, message: Messages.forbidden });
});

test.run();
