import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CommitteeMessages } from '../../domain/committee/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { committeePolicy, finishedDeliberation, proposalReportUnder, reportUnder } from '../support/committee.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

interface Ctx {
  app: TestApp;
  receiver: Receiver;
  tenant: TestTenant;
}
const test = suite<Ctx>('committee over HTTP (offline language model)');

test.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.receiver = await startReceiver();
  ctx.tenant = await provisionTenant(ctx.app);
  const subscribed = await ctx.app.call('POST', '/webhook', { token: ctx.tenant.token, body: { type: 'COMMITTEE_FINISHED', url: `${ctx.receiver.url}/committee` } });
  assert.is(subscribed.status, 200, JSON.stringify(subscribed.body));
});
test.after(async (ctx) => {
  await ctx.receiver.close();
  await ctx.app.stop();
});

test('AUTO_DECIDE: the seven specialists and the chair deliberate on finalization, the report carries it and COMMITTEE_FINISHED fires', async ({ app, receiver, tenant }) => {
  // Run from a proposal asking R$ 25.000: the offline chair approves only a requested amount.
  const reportId = await proposalReportUnder(app, tenant, committeePolicy('AUTO_DECIDE'), '11222333000181', 2_500_000);
  const deliberation = await finishedDeliberation(app, tenant.token, reportId);
  assert.is(deliberation.status, 'DONE', deliberation.error);
  assert.is(deliberation.trigger, 'AUTO_DECIDE');
  assert.is(deliberation.organizationId, tenant.organizationId);
  assert.equal(
    deliberation.agentOpinions.map((o: any) => o.agent),
    ['cadastral', 'societario', 'financeiro', 'comportamental', 'juridico', 'macro_setorial', 'compliance'],
  );
  const byAgent = Object.fromEntries(deliberation.agentOpinions.map((o: any) => [o.agent, o]));
  assert.equal(byAgent.compliance.sectionsSeen, ['SANCTIONS', 'MEDIA_EXPOSURE']);
  assert.equal(byAgent.comportamental.sectionsSeen, ['SCR', 'PEFIN', 'PROTESTS']);
  assert.is(byAgent.juridico.agentLabel, 'Jurídico');
  assert.is(deliberation.webSearchRequests, 0, 'no search engine configured: nothing searched (test/committee/web-search.test.ts searches)');
  assert.is(deliberation.customPrompts, false);
  assert.equal(Object.keys(deliberation.promptVersionsByAgent).length, 8);
  assert.is(deliberation.promptVersionsByAgent.chair.orgVersion, null);
  assert.ok(deliberation.synthesis.resumo && deliberation.synthesis.limitReview);
  assert.ok(Array.isArray(deliberation.synthesis.dissentLog));
  assert.is(deliberation.synthesis.alcadaLevel, 'N1');
  assert.is(deliberation.finalRecommendation, 'APPROVED');
  // The request is the limit; the rules set no rate or term of their own.
  assert.equal([deliberation.synthesis.limitReview.limite, deliberation.synthesis.limitReview.taxa, deliberation.synthesis.limitReview.prazo], [25_000, 0, 0]);
  assert.ok(deliberation.durationMs >= 0 && deliberation.totalInputTokens >= 0);
  assert.ok(deliberation.modelVersions.chair);

  const report = await eventually(
    async () => {
      const reply = await app.call('GET', `/v2/report/${reportId}`, { token: tenant.token });
      return reply.body.committeeStatus === 'DONE' && reply.body.status.value === 'APPROVED' && reply.body;
    },
    { timeoutMs: 10_000, what: 'report with the committee' },
  );
  assert.is(report.committeeDecision, 'APPROVED');
  assert.is(report.committeeResult.deliberationId, deliberation.id);
  assert.equal(report.committeeResult.agentOpinions, deliberation.agentOpinions);
  const insights = await app.call('GET', `/report/${reportId}/insights`, { token: tenant.token });
  assert.equal(insights.body.committee, { status: 'DONE', decision: 'APPROVED', result: deliberation });
  // The policy approved already: wait for the committee's own decision to be projected.
  const decisions = await eventually(
    async () => {
      const reply = await app.call('GET', `/report/${reportId}/decisions`, { token: tenant.token });
      return reply.body.length === 2 && reply.body;
    },
    { timeoutMs: 10_000, what: "the committee's decision" },
  );
  // The chair was the offline model: its decision is a sandbox one, in the history and on the report.
  assert.equal(
    decisions.map((d: any) => [d.kind, d.decidedBy, d.decision, d.sandbox]),
    [
      ['AUTOMATIC', 'POLICY', 'APPROVED', false],
      ['COMMITTEE', 'COMMITTEE', 'APPROVED', true],
    ],
  );
  const decidedReport = await eventually(
    async () => {
      const reply = await app.call('GET', `/v2/report/${reportId}`, { token: tenant.token });
      return reply.body.sandboxDecision === true && reply.body;
    },
    { timeoutMs: 10_000, what: 'the report marked as decided in sandbox' },
  );
  assert.is(decidedReport.status.value, 'APPROVED');

  const [delivery] = await eventually(
    async () => {
      const mine = receiver.received.filter((r) => r.body.includes(deliberation.id));
      return mine.length > 0 && mine;
    },
    { timeoutMs: 15_000, what: 'COMMITTEE_FINISHED' },
  );
  const envelope = JSON.parse(delivery!.body);
  assert.is(envelope.webhookType, 'COMMITTEE_FINISHED');
  assert.is(envelope.data.status, 'DONE');
  assert.is(envelope.data.decision, 'APPROVED');
  assert.equal(envelope.data.synthesis, deliberation.synthesis);
  assert.is(envelope.data.document, '11222333000181');
  // The offline chair on a sandbox report: the payload says so, as the deliberation's API does.
  assert.equal(envelope.data.provenance, { provider: 'offline', sandbox: true });
  assert.equal(envelope.data.provenance, deliberation.provenance);
  assert.is(envelope.data.sandboxData, true);
});

test('AUTO_DECIDE without a requested amount: the offline chair invents no limit, recommends NEEDS_INFO, and the report keeps the policy decision', async ({ app, tenant }) => {
  const reportId = await reportUnder(app, tenant.token, committeePolicy('AUTO_DECIDE'), '10000003000189');
  const deliberation = await finishedDeliberation(app, tenant.token, reportId);
  assert.is(deliberation.status, 'DONE', deliberation.error);
  assert.is(deliberation.synthesis.decision, 'NEEDS_INFO');
  assert.is(deliberation.finalRecommendation, 'NEEDS_INFO');
  assert.equal(deliberation.synthesis.limitReview, { status: 'NAO_APLICAVEL', limite: 0, taxa: 0, prazo: 0, justificativa: 'Sem limite: a proposta não informa o valor pedido.' });
  assert.ok(deliberation.synthesis.infoGapsBeforeDecision.some((gap: string) => gap.startsWith('Valor pedido')));
  const decisions = await app.call('GET', `/report/${reportId}/decisions`, { token: tenant.token });
  assert.equal(
    decisions.body.map((d: any) => d.decidedBy),
    ['POLICY'],
  );
});

test('AUTO_SUGGEST beyond the committee alçada: REQUIRES_ALCADA, and the report keeps the policy decision', async ({ app, tenant }) => {
  const reportId = await reportUnder(app, tenant.token, committeePolicy('AUTO_SUGGEST', null), '10000002000134');
  const deliberation = await finishedDeliberation(app, tenant.token, reportId);
  assert.is(deliberation.trigger, 'AUTO_SUGGEST');
  assert.ok(['REQUIRES_ALCADA', 'NEEDS_INFO'].includes(deliberation.finalRecommendation), deliberation.finalRecommendation);
  const report = await app.call('GET', `/v2/report/${reportId}`, { token: tenant.token });
  assert.is(report.body.status.value, 'MANUAL_ANALYSIS');
  assert.is(report.body.committeeDecision, deliberation.finalRecommendation);
});

test('trigger OFF convenes nothing; POST convenes MANUAL, then RERUN, and the latest is returned', async ({ app, tenant }) => {
  const reportId = await reportUnder(app, tenant.token, committeePolicy('OFF'));
  const none = await app.call('GET', `/committee/deliberations/${reportId}`, { token: tenant.token });
  assert.is(none.status, 404);
  assert.is(none.body.message, Messages.committeeNotFound);
  assert.is((await app.call('GET', `/v2/report/${reportId}`, { token: tenant.token })).body.committeeStatus, null);

  const manual = await app.call('POST', `/report/${reportId}/committee`, { token: tenant.token });
  assert.is(manual.status, 202, JSON.stringify(manual.body));
  assert.is(manual.body.trigger, 'MANUAL');
  const first = await finishedDeliberation(app, tenant.token, reportId);
  assert.is(first.id, manual.body.id);
  const rerun = await app.call('POST', `/report/${reportId}/committee`, { token: tenant.token });
  assert.is(rerun.status, 202);
  assert.is(rerun.body.trigger, 'RERUN');
  assert.is.not(rerun.body.id, first.id);
  const second = await finishedDeliberation(app, tenant.token, reportId, first.id);
  assert.is(second.id, rerun.body.id);
  // MANUAL never decides the report, even inside the alçada.
  const decisions = await app.call('GET', `/report/${reportId}/decisions`, { token: tenant.token });
  assert.equal(
    decisions.body.map((d: any) => d.kind),
    ['AUTOMATIC'],
  );
});

test("the organization's instructions for an agent: customPrompts and that agent's orgVersion", async ({ app, tenant }) => {
  const policy = committeePolicy('AUTO_SUGGEST');
  const reportId = await reportUnder(app, tenant.token, { ...policy, committee: { ...policy.committee, instructions: { juridico: 'Considere recuperação judicial como alerta crítico.' } } });
  const deliberation = await finishedDeliberation(app, tenant.token, reportId);
  assert.is(deliberation.customPrompts, true);
  assert.equal(deliberation.promptVersionsByAgent.juridico, { baseVersion: 'v1', orgVersion: 1 });
  assert.equal(deliberation.promptVersionsByAgent.chair, { baseVersion: 'v1', orgVersion: null });
  assert.is(deliberation.promptVersion, 'v1');
});

test('ids, tenants, modules and unknown reports', async ({ app, tenant }) => {
  const bad = await app.call('GET', '/committee/deliberations/xyz', { token: tenant.token });
  assert.is(bad.status, 400);
  assert.is((await app.call('POST', '/report/xyz/committee', { token: tenant.token })).status, 400);
  const unknown = await app.call('POST', `/report/${'a'.repeat(24)}/committee`, { token: tenant.token });
  assert.is(unknown.status, 404);
  assert.is(unknown.body.message, Messages.reportNotFound);

  const reportId = await reportUnder(app, tenant.token, committeePolicy('AUTO_SUGGEST'));
  await finishedDeliberation(app, tenant.token, reportId);
  const other = await provisionTenant(app, { name: 'Outra' });
  const hidden = await app.call('GET', `/committee/deliberations/${reportId}`, { token: other.token });
  assert.is(hidden.status, 404);
  assert.is(hidden.body.message, Messages.committeeNotFound);
  assert.is((await app.call('POST', `/report/${reportId}/committee`, { token: other.token })).status, 404);
  const withoutModule = await provisionTenant(app, { name: 'Sem comitê', modules: ['reports'] });
  const refused = await app.call('POST', `/report/${reportId}/committee`, { token: withoutModule.token });
  assert.is(refused.status, 403);
  assert.is(refused.body.message, CommitteeMessages.moduleDisabled);
  assert.is((await app.call('GET', `/committee/deliberations/${reportId}`, { token: withoutModule.token })).status, 404);
});

test.run();
