import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { creditPolicyDemoSeeder } from '../../application/credit-policy/demo.ts';
import { DEMO_CNPJ_POLICY, DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { policyStream } from '../../domain/credit-policy/events.ts';
import { Messages } from '../../domain/shared/messages.ts';
import type { TestApp } from '../support/app.ts';
import { provisionTenant, serviceWithTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';

const test = suite('credit policies through HTTP');
let app: TestApp;
let tenant: TestTenant;
const MISSING = '0123456789abcdef01234567';

const call = serviceWithTenant(test, (a, t) => {
  app = a;
  tenant = t;
});

test('create, read, list: the whole record with generated ids where absent', async () => {
  const body = {
    name: 'Capital de giro',
    documentType: 'CNPJ',
    sections: ['BASIC_INFORMATION', 'PROTESTS'],
    score: { base: 600, approveFrom: 500, denyBelow: 200, factors: [{ label: 'Protestos', points: { '*': [-50, { var: 'PROTESTS.bureau.protestsQuantity' }] } }] },
    groups: [{ name: 'Restritivos', rules: [{ name: 'Até 1 protesto', condition: { '<=': [{ var: 'PROTESTS.bureau.protestsQuantity' }, 1] }, onFail: 'DENY' }] }],
  };
  const created = await call('POST', '/credit-policy/policy', body);
  assert.is(created.status, 200, JSON.stringify(created.body));
  const p = created.body;
  assert.is(p.version, 1);
  assert.is(p.status, 'ACTIVE');
  assert.is(p.documentType, 'cnpj');
  assert.equal(p.score.min, 0);
  assert.equal(p.score.max, 1000);
  assert.is(p.score.factors[0].id, 'f1');
  assert.is(p.groups[0].id, 'g1');
  assert.is(p.groups[0].rules[0].id, 'g1.r1');
  assert.equal(p.sourceErrors, {
    INTEGRATION_TIMEOUT: 'MANUAL_ANALYSIS',
    INTEGRATION_UNAVAILABLE: 'MANUAL_ANALYSIS',
    INTEGRATION_NO_DATA: 'MANUAL_ANALYSIS',
    INTEGRATION_INVALID_DOCUMENT: 'MANUAL_ANALYSIS',
  });
  assert.equal((await call('GET', `/credit-policy/policy/${p.id}`)).body, p);
  const list = (await call('GET', '/credit-policy/policy')).body;
  assert.ok(list.some((x: any) => x.id === p.id));
  assert.ok((await call('GET', '/credit-policy/policy?documentType=cpf')).body.every((x: any) => x.documentType === 'cpf'));
});

test('an edit is a new version; a report keeps the version it ran under', async () => {
  const v1 = (await call('POST', '/credit-policy/policy', DEMO_CPF_POLICY)).body;
  const report = (await call('POST', '/v2/report', { document: '12345678909', type: 'cpf', policyId: v1.id })).body;
  const strict = { ...DEMO_CPF_POLICY, name: 'PF rigorosa', score: { ...DEMO_CPF_POLICY.score, approveFrom: 900 } };
  const v2 = (await call('PUT', `/credit-policy/policy/${v1.id}`, strict)).body;
  assert.is(v2.version, 2);
  assert.is(v2.name, 'PF rigorosa');
  assert.is((await call('PUT', `/credit-policy/policy/${v1.id}`, strict)).body.version, 2, 'unchanged content: no version');

  const first = await waitForReport(app, tenant.token, report.id);
  assert.is(first.policyVersion, 1);
  assert.is(first.policyName, DEMO_CPF_POLICY.name);
  assert.is(first.policyStatus, 'APPROVED');
  const second = (await call('POST', '/v2/report', { document: '12345678909', type: 'cpf', policyId: v1.id })).body;
  const later = await waitForReport(app, tenant.token, second.id);
  assert.is(later.policyVersion, 2);
  assert.is(later.policyName, 'PF rigorosa');
  assert.is(later.policyStatus, 'MANUAL_ANALYSIS', 'the stricter cut-off applies to new reports only');

  const versions = (await call('GET', `/credit-policy/policy/${v1.id}/versions`)).body;
  assert.equal(
    versions.map((v: any) => [v.version, v.name]),
    [
      [1, DEMO_CPF_POLICY.name],
      [2, 'PF rigorosa'],
    ],
  );
  assert.is((await call('GET', `/credit-policy/policy/${v1.id}/versions/1`)).body.score.approveFrom, 600);
  assert.equal((await call('GET', `/credit-policy/policy/${v1.id}/versions/9`)).body, { code: 404, message: Messages.policyVersionNotFound });
  assert.equal((await call('PUT', `/credit-policy/policy/${v1.id}`, DEMO_CNPJ_POLICY)).body, { code: 400, message: Messages.policyDocumentTypeChange });
});

test('archive: out of the list, still readable, no new version', async () => {
  const p = (await call('POST', '/credit-policy/policy', { ...DEMO_CPF_POLICY, name: 'Arquivar' })).body;
  const archived = (await call('DELETE', `/credit-policy/policy/${p.id}`)).body;
  assert.is(archived.status, 'ARCHIVED');
  assert.ok(archived.archivedAt);
  assert.not.ok((await call('GET', '/credit-policy/policy')).body.some((x: any) => x.id === p.id));
  assert.ok((await call('GET', '/credit-policy/policy?includeArchived=true')).body.some((x: any) => x.id === p.id));
  assert.equal((await call('PUT', `/credit-policy/policy/${p.id}`, { ...DEMO_CPF_POLICY, name: 'x' })).body, { code: 409, message: Messages.policyArchived });
});

test('validation: shape in the contract style, meaning in Portuguese', async () => {
  const missing = await call('POST', '/credit-policy/policy', {});
  assert.is(missing.status, 400);
  assert.is(missing.body.message, 'name should not be empty,documentType must be one of the following values: cpf, cnpj,sections should not be empty,score should not be empty');
  const badSection = await call('POST', '/credit-policy/policy', { ...DEMO_CPF_POLICY, sections: ['NOPE'] });
  assert.match(badSection.body.message, /^sections\.0 must be one of the following values: SANCTIONS/);
  const badRule = await call('POST', '/credit-policy/policy', { ...DEMO_CPF_POLICY, groups: [{ name: 'G', rules: [{ name: 'R', condition: { frobnicate: [1] }, onFail: 'DENY' }] }] });
  assert.equal(badRule.body, { code: 400, message: 'A regra "g1.r1" não é uma expressão JSON Logic válida: operador desconhecido "frobnicate".' });
  const cnpjOnly = await call('POST', '/credit-policy/policy', { ...DEMO_CPF_POLICY, sections: ['BALANCE_SHEET'] });
  assert.equal(cnpjOnly.body, { code: 400, message: 'A seção BALANCE_SHEET não se aplica a políticas de CPF.' });
  assert.is((await call('GET', '/credit-policy/policy/nope')).status, 400);
});

test('numbers beyond the bounds: 400 naming the field and its range, nothing appended, reports still decided', async () => {
  const events = async () => Number((await app.database.knex('events').count<{ count: string }[]>('* as count'))[0]!.count);
  const p = (await call('POST', '/credit-policy/policy', { ...DEMO_CPF_POLICY, name: 'Limites' })).body;
  const before = await events();
  const withScore = (patch: Record<string, unknown>) => ({ ...DEMO_CPF_POLICY, score: { ...DEMO_CPF_POLICY.score, ...patch } });
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ base: 3e9, max: 3e9 }, 'score.base must not be greater than 100000,score.max must not be greater than 100000'],
    [{ max: 1e308 }, 'score.max must not be greater than 100000'],
    [{ min: -3e9 }, 'score.min must not be less than -100000'],
    [{ approveFrom: 1e308, denyBelow: -1e308 }, 'score.approveFrom must not be greater than 100000,score.denyBelow must not be less than -100000'],
    [{ factors: [{ label: 'Enorme', points: 1e308 }] }, 'score.factors.0.points must not be greater than 200000'],
    [{ factors: [{ label: 'Nada', points: 'x' }] }, 'score.factors.0.points has an invalid value'],
  ];
  for (const [patch, message] of cases) {
    assert.equal((await call('POST', '/credit-policy/policy', withScore(patch))).body, { code: 400, message });
    assert.equal((await call('PUT', `/credit-policy/policy/${p.id}`, withScore(patch))).body, { code: 400, message });
  }
  assert.is(await events(), before, 'nothing appended');
  assert.is((await call('GET', `/credit-policy/policy/${p.id}/versions/99999999999999999999`)).body.message, 'version must not be greater than 2147483647');

  const widest = withScore({ base: 100_000, min: -100_000, max: 100_000, approveFrom: 100_000, denyBelow: -100_000, factors: [{ label: 'Tudo', points: 200_000 }] });
  const edge = (await call('POST', '/credit-policy/policy', widest)).body;
  const report = (await call('POST', '/v2/report', { document: '12345678909', type: 'cpf', policyId: edge.id })).body;
  const decided = await waitForReport(app, tenant.token, report.id, 120_000);
  assert.is(decided.score, 100_000, 'the largest score fits the read model');
});

test('a policy saved before the bounds (base 3e9, maximum 1e308) decides its reports and stalls no one', async () => {
  const policyId = app.app.ids.objectId();
  const content = { ...DEMO_CPF_POLICY, name: 'Antes dos limites', score: { ...DEMO_CPF_POLICY.score, base: 3e9, max: 1e308, approveFrom: 600 } };
  // Straight into the store, as the decider accepted it before the bounds.
  const data = { policyId, organizationId: tenant.organizationId, version: 1, content, userId: tenant.userId, createdAt: new Date().toISOString() };
  await app.app.store.appendToStream(policyStream(policyId), [{ type: 'CreditPolicyCreated', data }]);
  const old = (await call('POST', '/v2/report', { document: '12345678909', type: 'cpf', policyId })).body;
  assert.ok((await waitForReport(app, tenant.token, old.id, 120_000)).score > 2 ** 31, 'beyond an int column');

  const other = await provisionTenant(app, { name: 'Vizinho' });
  const policy = (await call('POST', '/credit-policy/policy', DEMO_CPF_POLICY, other.token)).body;
  const next = (await call('POST', '/v2/report', { document: '12345678909', type: 'cpf', policyId: policy.id }, other.token)).body;
  assert.is((await waitForReport(app, other.token, next.id, 120_000)).policyStatus, 'APPROVED', 'the projection went on past it');
});

test('organizations and permissions', async () => {
  const p = (await call('POST', '/credit-policy/policy', DEMO_CPF_POLICY)).body;
  const other = await provisionTenant(app, { name: 'Other' });
  assert.equal((await call('GET', `/credit-policy/policy/${p.id}`, undefined, other.token)).body, { code: 404, message: Messages.policyNotFound });
  assert.equal((await call('PUT', `/credit-policy/policy/${p.id}`, DEMO_CPF_POLICY, other.token)).body, { code: 404, message: Messages.policyNotFound });
  assert.equal((await call('GET', `/credit-policy/policy/${MISSING}`)).body, { code: 404, message: Messages.policyNotFound });
  assert.not.ok((await call('GET', '/credit-policy/policy', undefined, other.token)).body.some((x: any) => x.id === p.id));

  const reporter = await provisionTenant(app, { name: 'Reporter', permissions: ['can-create-report-api'] });
  assert.is((await call('GET', '/credit-policy/policy', undefined, reporter.token)).status, 200, 'report creators find their policyId');
  assert.equal((await call('POST', '/credit-policy/policy', DEMO_CPF_POLICY, reporter.token)).body, { code: 403, message: Messages.forbidden });
});

test('the demo seeder: one CPF and one CNPJ policy', async () => {
  const seeded = (await creditPolicyDemoSeeder.seed(app.app, {
    organizationId: tenant.organizationId,
    userId: tenant.userId,
    principal: { organizationId: tenant.organizationId, userId: tenant.userId } as never,
  })) as { policies: Array<{ id: string; name: string; documentType: string }> };
  assert.equal(
    seeded.policies.map((p) => p.documentType),
    ['cpf', 'cnpj'],
  );
  for (const p of seeded.policies) assert.match(p.id, /^[0-9a-f]{24}$/);
});

test.run();
