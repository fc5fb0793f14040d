import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { MODULES } from '../../domain/identity/access.ts';
import { Messages } from '../../domain/shared/messages.ts';
import type { TestApp } from '../support/app.ts';
import { provisionTenant, serviceWithTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { readUntil } from '../support/wait.ts';

const test = suite('report insights: AI opinions per section (offline adapter) through HTTP');
let app: TestApp;
let tenant: TestTenant;
let withoutCommittee: TestTenant;
const OTHER = '0123456789abcdef01234567';

const call = serviceWithTenant(test, async (a, t) => {
  app = a;
  tenant = t;
  withoutCommittee = await provisionTenant(a, { modules: MODULES.filter((m) => m !== 'committee') });
});

async function reportUnder(token: string, policy: object, document = '10000000108') {
  const policyId = (await app.call('POST', '/credit-policy/policy', { token, body: policy })).body.id;
  const created = await app.call('POST', '/v2/report', { token, body: { document, type: 'cpf', policyId } });
  assert.is(created.status, 200, JSON.stringify(created.body));
  await waitForReport(app, token, created.body.id);
  return created.body.id as string;
}

/** Opinions come after finalization, from a process manager: poll until none is PENDING. */
async function insightsWhenDone(id: string, token = tenant.token, timeoutMs = 20_000) {
  return readUntil(
    async () => {
      const reply = await app.call('GET', `/report/${id}/insights`, { token });
      assert.is(reply.status, 200, JSON.stringify(reply.body));
      return reply.body;
    },
    (body) => body.sections.length > 0 && body.sections.every((s: { parecerStatus: string | null }) => s.parecerStatus === 'DONE' || s.parecerStatus === 'ERROR'),
    { timeoutMs, what: 'the opinions to be done' },
  );
}

test('parecerEnabled policy + module committee: every source section gets an opinion; the report and its sections show them', async () => {
  const id = await reportUnder(tenant.token, { ...DEMO_CPF_POLICY, parecerEnabled: true });
  const insights = await insightsWhenDone(id);
  assert.is(insights.reportId, id);
  assert.is(insights.parecerEnabled, true);
  assert.equal(
    insights.sections.map((s: any) => s.type.value),
    DEMO_CPF_POLICY.sections,
  );
  const protests = insights.sections.find((s: any) => s.type.value === 'PROTESTS');
  assert.is(protests.parecerStatus, 'DONE');
  assert.match(protests.parecer, /5 protestos/);
  assert.ok(protests.parecerScore < 5, `score ${protests.parecerScore}`);
  assert.ok(['HIGH', 'CRITICAL'].includes(protests.parecerRiskLevel));
  assert.ok(protests.highlights.length >= 1);
  assert.equal([protests.model, protests.promptVersion, protests.costUsd], ['offline', 'v1', 0]);
  assert.ok(protests.inputTokens > 0 && insights.totals.inputTokens >= protests.inputTokens);
  assert.is(insights.committee, null);

  const report = (await call('GET', `/v2/report/${id}`)).body;
  assert.is(report.parecerEnabled, true);
  const section = report.sections.find((s: any) => s.type.value === 'PROTESTS');
  assert.equal([section.parecerStatus, section.parecerScore, section.parecerRiskLevel], ['DONE', protests.parecerScore, protests.parecerRiskLevel]);
  assert.is(report.sections.find((s: any) => s.type.value === 'SUMMARY').parecerStatus, null);

  const only = (await call('GET', `/report/${id}/insights?section=PROTESTS`)).body;
  assert.equal(only.sections, [protests]);
});

test('the same section data and prompt version give the same opinion', async () => {
  const first = await insightsWhenDone(await reportUnder(tenant.token, { ...DEMO_CPF_POLICY, parecerEnabled: true, name: 'A' }));
  const second = await insightsWhenDone(await reportUnder(tenant.token, { ...DEMO_CPF_POLICY, parecerEnabled: true, name: 'B' }));
  const texts = (x: any) => x.sections.map((s: any) => [s.parecer, s.parecerScore, s.parecerRiskLevel, s.highlights]);
  assert.equal(texts(first), texts(second));
});

test('no opinions without parecerEnabled, or without module committee: parecerEnabled false, statuses null', async () => {
  for (const [token, policy] of [
    [tenant.token, DEMO_CPF_POLICY],
    [withoutCommittee.token, { ...DEMO_CPF_POLICY, parecerEnabled: true }],
  ] as const) {
    const id = await reportUnder(token, policy);
    // A report with opinions on is marked within the same worker pass: give it time to (not) happen.
    const marker = await reportUnder(tenant.token, { ...DEMO_CPF_POLICY, parecerEnabled: true, name: 'marcador' });
    await insightsWhenDone(marker);
    const insights = (await app.call('GET', `/report/${id}/insights`, { token })).body;
    assert.is(insights.parecerEnabled, false);
    assert.ok(insights.sections.every((s: any) => s.parecerStatus === null && s.parecer === null));
  }
});

test('another organization, an unknown id: 404; a bad id or section: 400', async () => {
  const id = await reportUnder(tenant.token, { ...DEMO_CPF_POLICY, parecerEnabled: true, name: 'C' });
  assert.equal((await app.call('GET', `/report/${id}/insights`, { token: withoutCommittee.token })).body, { code: 404, message: Messages.reportNotFound });
  assert.is((await call('GET', `/report/${OTHER}/insights`)).status, 404);
  assert.is((await call('GET', '/report/123/insights')).status, 400);
  assert.is((await call('GET', `/report/${id}/insights?section=NOPE`)).status, 400);
});

test.run();
