import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY, DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { SANDBOX_DOCUMENTS } from '../../application/report/sources/sandbox-documents.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';

const test = suite('reports through HTTP: the sandbox table');
let app: TestApp;
let tenant: TestTenant;
const policies: Record<string, string> = {};

test.before(async () => {
  app = await startTestApp({ SOURCE_TIMEOUT_MS: '300' });
  tenant = await provisionTenant(app);
  for (const content of [DEMO_CPF_POLICY, DEMO_CNPJ_POLICY]) {
    const reply = await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: content });
    assert.is(reply.status, 200, JSON.stringify(reply.body));
    policies[content.documentType] = reply.body.id;
  }
});
test.after(async () => {
  await app?.stop();
});

test('every test document gets its documented outcome', async () => {
  const created = await Promise.all(
    SANDBOX_DOCUMENTS.map(async (doc) => {
      const reply = await app.call('POST', '/v2/report', {
        token: tenant.token,
        body: { document: doc.document, type: doc.type, policyId: policies[doc.type], externalId: `ext-${doc.document}` },
      });
      assert.is(reply.status, 200, JSON.stringify(reply.body));
      return { doc, id: reply.body.id as string };
    }),
  );
  for (const { doc, id } of created) {
    const report = await waitForReport(app, tenant.token, id);
    const what = `${doc.document} (${doc.behaviour})`;
    assert.is(report.policyStatus, doc.expectedPolicyStatus, what);
    assert.is(report.status.value, doc.expectedPolicyStatus, what);
    assert.is(report.externalId, `ext-${doc.document}`);
    assert.ok(report.reportProgress.finalizedAt, what);
    const errors = report.sections.flatMap((s: any) => s.errors.map((e: any) => `${s.type.value}:${e.code}`)).sort();
    const expectedErrors: Record<string, (e: string[]) => boolean> = {
      TIMEOUT: (e) => e.join() === 'PROTESTS:INTEGRATION_TIMEOUT',
      UNAVAILABLE: (e) => e.join() === 'PROTESTS:INTEGRATION_UNAVAILABLE',
      NO_DATA: (e) => e.join() === 'BASIC_INFORMATION:INTEGRATION_NO_DATA,LOCATION:INTEGRATION_NO_DATA',
      INVALID_DOCUMENT: (e) => e.length > 0 && e.every((x) => x.endsWith(':INTEGRATION_INVALID_DOCUMENT')),
    };
    assert.ok((expectedErrors[doc.behaviour] ?? ((e: string[]) => e.length === 0))(errors), `${what}: ${errors.join()}`);
    const errored = ['TIMEOUT', 'UNAVAILABLE', 'NO_DATA', 'INVALID_DOCUMENT'].includes(doc.behaviour);
    assert.is(report.policyErrorStatusApplied, errored ? doc.expectedPolicyStatus : null, what);
    const policySection = report.sections.find((s: any) => s.type.value === 'CREDIT_POLICY');
    assert.is(policySection.sectionDetails.decision, doc.expectedPolicyStatus);
    assert.is(policySection.sectionDetails.score, report.score);
    assert.ok(policySection.sectionDetails.groups.length > 0);
  }
});

test.run();
