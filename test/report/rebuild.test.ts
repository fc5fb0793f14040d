import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY, DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { SANDBOX_DOCUMENTS } from '../../application/report/sources/sandbox-documents.ts';
import { creditPolicyProjection } from '../../projections/credit-policy/projection.ts';
import { rebuildProjection } from '../../platform/projections/rebuild.ts';
import { reportProjection } from '../../projections/report/projection.ts';
import type { Projection } from '../../platform/projections/projection.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';

const test = suite('report and credit policy read models equal a rebuild');
let app: TestApp;

test.before(async () => {
  app = await startTestApp({ SOURCE_TIMEOUT_MS: '200' });
  const tenant = await provisionTenant(app);
  const ids: Record<string, string> = {};
  for (const content of [DEMO_CPF_POLICY, DEMO_CNPJ_POLICY]) {
    ids[content.documentType] = (await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: content })).body.id;
  }
  // A second version, and an archived policy: versions must survive the rebuild too.
  await app.call('PUT', `/credit-policy/policy/${ids.cpf}`, { token: tenant.token, body: { ...DEMO_CPF_POLICY, name: 'PF v2' } });
  const archived = (await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: { ...DEMO_CPF_POLICY, name: 'old' } })).body.id;
  await app.call('DELETE', `/credit-policy/policy/${archived}`, { token: tenant.token });

  const reports = await Promise.all(
    SANDBOX_DOCUMENTS.map(
      async (d) => (await app.call('POST', '/v2/report', { token: tenant.token, body: { document: d.document, type: d.type, policyId: ids[d.type], externalId: d.behaviour } })).body.id as string,
    ),
  );
  for (const id of reports) await waitForReport(app, tenant.token, id);
  await app.call('POST', '/report/analyze', { token: tenant.token, body: { id: reports[2], approved: true, commentary: 'ok' } });
  await app.call('POST', '/report/re-analyze', { token: tenant.token, body: { id: reports[2], approved: false, commentary: 'not ok' } });
  await app.call('POST', `/report/${reports[0]}/export`, { token: tenant.token, body: { format: 'pdf' } });
  await app.call('POST', `/report/${reports[0]}/export`, { token: tenant.token, body: { format: 'xlsx' } });
});
test.after(async () => {
  await app?.stop();
});

async function snapshot(projection: Projection) {
  const tables: Record<string, unknown[]> = {};
  for (const table of projection.tables) {
    const key = table === 'credit_policy_versions' ? ['policy_id', 'version'] : table === 'report_decisions' ? ['event_id'] : ['id'];
    tables[table] = await app.database.knex(table).select('*').orderBy(key);
  }
  return tables;
}

for (const projection of [reportProjection, creditPolicyProjection]) {
  test(`${projection.name}: replay beside the live tables, switch, same rows`, async () => {
    const before = await snapshot(projection);
    assert.ok(
      Object.values(before).every((rows) => rows.length > 0),
      'something to compare',
    );
    await rebuildProjection(app.database.knex, app.app.store, projection);
    const after = await snapshot(projection);
    for (const table of projection.tables) assert.equal(after[table], before[table], table);
  });
}

test.run();
