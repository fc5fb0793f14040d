import { AGENT_LABELS, COMMITTEE_AGENTS } from '../../domain/committee/agents.ts';
import type { AgentOpinion, AgentRecommendation, ChairSynthesis, CommitteeSettings, DeliberationEvent, DeliberationFacts, SpecialistAgent } from '../../domain/committee/events.ts';
import { deliberationDecider, type DeliberationCommand } from '../../domain/committee/decider.ts';
import { SPECIALISTS } from '../../domain/committee/state.ts';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import type { TestApp } from './app.ts';
import { personalCredit, seedProduct } from './catalog.ts';
import { waitForReport } from './report.ts';
import { eventually } from './wait.ts';

/** Deliberation events and commands for decider tests: readable ids, fixed times. */
export const AT = '2026-11-23T10:00:00.000Z';
export const LATER = '2026-11-23T10:00:01.500Z';

export const facts: DeliberationFacts = {
  deliberationId: 'de1000000000000000000001',
  organizationId: 'org000000000000000000001',
  reportId: 'rep000000000000000000001',
  reportCreatedAt: '2026-11-23T09:00:00.000Z',
  document: '12345678000195',
  externalId: null,
  policyId: 'pol000000000000000000001',
  policyVersion: 3,
  trigger: 'AUTO_SUGGEST',
};

export const settings: CommitteeSettings = {
  alcadas: [
    { level: 'N1', maxAmountCents: 5_000_000, maxRiskLevel: 'MEDIUM' },
    { level: 'N2', maxAmountCents: 50_000_000, maxRiskLevel: 'HIGH' },
    { level: 'DIRETORIA', maxAmountCents: 500_000_000, maxRiskLevel: 'CRITICAL' },
  ],
  committeeMaxLevel: 'N1',
};

export const start = (patch: Partial<Extract<DeliberationCommand, { type: 'StartDeliberation' }>> = {}): DeliberationCommand => ({
  type: 'StartDeliberation',
  facts,
  userId: null,
  promptVersion: 'v1',
  promptVersionsByAgent: Object.fromEntries(COMMITTEE_AGENTS.map((a) => [a, { baseVersion: 'v1', orgVersion: null }])) as never,
  customPrompts: false,
  settings,
  requestedAmountCents: 2_000_000,
  at: AT,
  ...patch,
});

export const opinion = (agent: SpecialistAgent, score = 8, recommendation: AgentRecommendation = 'APPROVE'): AgentOpinion => ({
  agent,
  agentLabel: AGENT_LABELS[agent],
  score,
  resumo: `Resumo ${agent}`,
  parecer: `Parecer ${agent}`,
  redFlags: [],
  positiveFactors: [{ label: 'Dados completos', detail: 'Todas as fontes responderam.' }],
  confidence: 0.8,
  infoGaps: [],
  recommendation,
  model: 'offline-rules',
  costUsd: 0.001,
  sectionsSeen: ['BASIC_INFORMATION'],
});

export const usage = (model = 'offline-rules') => ({ model, inputTokens: 100, outputTokens: 50, costUsd: 0.001, durationMs: 5 });

export const recordOpinion = (agent: SpecialistAgent, score = 8, recommendation: AgentRecommendation = 'APPROVE'): DeliberationCommand => ({
  type: 'RecordAgentOpinion',
  opinion: opinion(agent, score, recommendation),
  usage: usage(),
  webSearchRequests: agent === 'cadastral' ? 2 : 0,
  at: AT,
});

export const chair = (patch: Partial<ChairSynthesis> = {}): ChairSynthesis => ({
  decision: 'APPROVED',
  resumo: 'Aprovado pelo comitê.',
  reasoning: 'Fundamentos sólidos.',
  proximaAcao: 'Formalizar a operação.',
  conditions: [],
  monitoringItems: ['Acompanhar o SCR trimestralmente.'],
  infoGapsBeforeDecision: [],
  limitReview: { status: 'ADEQUADO', limite: 20_000, taxa: 2.1, prazo: 24, justificativa: 'Compatível com o faturamento.' },
  confidence: 0.8,
  ...patch,
});

/** Started, plus an opinion of each specialist (votes and scores per agent where given). */
export function deliberated(votes: Partial<Record<SpecialistAgent, [number, AgentRecommendation]>> = {}, startPatch = {}): DeliberationEvent[] {
  const events: DeliberationEvent[] = [];
  let state = deliberationDecider.initialState();
  for (const command of [start(startPatch), ...SPECIALISTS.map((a) => recordOpinion(a, ...(votes[a] ?? [8, 'APPROVE'])))]) {
    for (const event of deliberationDecider.decide(command, state)) {
      events.push(event);
      state = deliberationDecider.evolve(state, event);
    }
  }
  return events;
}

/** HTTP helpers of the committee suites: a CNPJ policy with a committee part, a finalized report under it, its deliberation once it ended. */
export const committeePolicy = (trigger: string, committeeMaxLevel: string | null = 'N1') => ({
  ...DEMO_CNPJ_POLICY,
  name: `Comitê ${trigger}`,
  committee: {
    trigger,
    alcadas: [
      { level: 'N1', maxAmountCents: 100_000_000, maxRiskLevel: 'MEDIUM' },
      { level: 'N2', maxAmountCents: 1_000_000_000, maxRiskLevel: 'CRITICAL' },
    ],
    committeeMaxLevel,
  },
});

export async function reportUnder(app: TestApp, token: string, policy: unknown, document = '11222333000181') {
  const created = await app.call('POST', '/credit-policy/policy', { token, body: policy });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const report = await app.call('POST', '/v2/report', { token, body: { document, type: 'cnpj', policyId: created.body.id, externalId: 'erp-7' } });
  assert.is(report.status, 200, JSON.stringify(report.body));
  await waitForReport(app, token, report.body.id);
  return report.body.id as string;
}

/**
 * A report run from a proposal that asks `requestedAmountCents`: the path that gives the report a
 * requested amount (inputs.proposta.valor_pedido), which the offline chair needs to approve.
 */
export async function proposalReportUnder(app: TestApp, tenant: { token: string; organizationId: string }, policy: unknown, document: string, requestedAmountCents: number) {
  const created = await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: policy });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const productKey = `comite-${document}`;
  await seedProduct(app, tenant.organizationId, personalCredit({ key: productKey, name: 'Capital de giro', entityTypes: ['COMPANY'] }));
  const proposal = await app.call('POST', '/v1/proposals', { token: tenant.token, body: { document, name: 'Mercearia Ltda', productKey, requestedAmountCents, requestedTermMonths: 12 } });
  assert.is(proposal.status, 201, JSON.stringify(proposal.body));
  const run = await app.call('POST', `/v1/proposals/${proposal.body.id}/run`, { token: tenant.token, body: { kind: 'REPORT', targetId: created.body.id } });
  assert.is(run.status, 200, JSON.stringify(run.body));
  await waitForReport(app, tenant.token, run.body.reportId);
  return run.body.reportId as string;
}

export async function finishedDeliberation(app: TestApp, token: string, reportId: string, notId?: string) {
  return eventually(
    async () => {
      const reply = await app.call('GET', `/committee/deliberations/${reportId}`, { token });
      return reply.status === 200 && reply.body.status !== 'RUNNING' && reply.body.id !== notId && reply.body;
    },
    { timeoutMs: 20_000, what: `deliberation of ${reportId}` },
  );
}
