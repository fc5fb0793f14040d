import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { json, startChatServer, type ChatServer } from '../support/chat-server.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { readUntil } from '../support/wait.ts';

const test = suite('report insights over the OpenAI-compatible adapter (chat server on 127.0.0.1)');
let app: TestApp;
let tenant: TestTenant;
let server: ChatServer;

test.before(async () => {
  server = await startChatServer();
  app = await startTestApp({
    LLM_PROVIDER: 'openai-compatible',
    LLM_BASE_URL: server.baseUrl,
    LLM_MODEL: 'gpt-4o-mini',
    LLM_MAX_ATTEMPTS: '2',
    LLM_RETRY_BASE_MS: '0',
    LLM_PRICES: 'test-7;gpt-4o-mini=0.15/0.6',
  });
  tenant = await provisionTenant(app);
});
test.after(async () => {
  await app?.stop();
  await server?.close();
});

async function opinionsOf(policy: object) {
  const policyId = (await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: policy })).body.id;
  const id = (await app.call('POST', '/v2/report', { token: tenant.token, body: { document: '12345678909', type: 'cpf', policyId } })).body.id;
  await waitForReport(app, tenant.token, id);
  return readUntil(
    async () => (await app.call('GET', `/report/${id}/insights`, { token: tenant.token })).body,
    (body) => body.sections.every((s: any) => s.parecerStatus === 'DONE' || s.parecerStatus === 'ERROR'),
    { timeoutMs: 20_000, what: 'the opinions to be done' },
  );
}

test("the model's replies become the opinions, with the model's tokens and cost", async () => {
  server.script({ ...json({ parecer: 'Sem restrições relevantes.', score: 8.2, riskLevel: 'LOW', highlights: ['Cadastro limpo'] }), promptTokens: 1000, completionTokens: 100 });
  const insights = await opinionsOf({ ...DEMO_CPF_POLICY, parecerEnabled: true, name: 'modelo' });
  const sections = DEMO_CPF_POLICY.sections.length;
  assert.is(insights.sections.length, sections);
  for (const s of insights.sections) {
    assert.equal([s.parecerStatus, s.parecer, s.parecerScore, s.parecerRiskLevel, s.model, s.promptVersion], ['DONE', 'Sem restrições relevantes.', 8.2, 'LOW', 'gpt-4o-mini', 'v1']);
    assert.is(s.costUsd, 0.00021);
  }
  assert.is(insights.totals.inputTokens, 1000 * sections);
  assert.ok(
    server.requests.every((r) => r.body.messages[0].content.includes('analista de crédito sênior')),
    'the versioned prompt is the system message',
  );
});

test('replies that never fit the schema: each section ERROR after LLM_MAX_ATTEMPTS, with what the attempts cost', async () => {
  server.script(json({ parecer: 'x', score: 42 }));
  const insights = await opinionsOf({ ...DEMO_CPF_POLICY, parecerEnabled: true, name: 'inválido' });
  for (const s of insights.sections) {
    assert.equal([s.parecerStatus, s.parecer, s.parecerScore], ['ERROR', null, null]);
    assert.match(s.error, /no valid reply after 2 attempts/);
    assert.is(s.inputTokens, 200);
  }
  const report = (await app.call('GET', `/v2/report/${insights.reportId}`, { token: tenant.token })).body;
  assert.is(report.sections.find((s: any) => s.type.value === 'PROTESTS').parecerStatus, 'ERROR');
});

test.run();
