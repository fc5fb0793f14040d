import type Logger from 'bunyan';
import { AGENT_LABELS } from '../../domain/committee/agents.ts';
import { deliberationStream, type CallUsage, type DeliberationFinished, type SpecialistAgent } from '../../domain/committee/events.ts';
import { missingSpecialists, recordedOpinions, SPECIALISTS } from '../../domain/committee/state.ts';
import { reportDecider } from '../../domain/report/decider.ts';
import { reportStream } from '../../domain/report/events.ts';
import type { ReportState } from '../../domain/report/state.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { OFFLINE_MODEL } from '../llm/offline.ts';
import type { LanguageModel, LanguageModelCall } from '../llm/port.ts';
import { untrustedResults, type WebSearch } from '../llm/web-search.ts';
import { policyVersionsOf, promptFor } from './commands.ts';
import { offlineOpinion, offlineSynthesis, type ChairInput } from './offline.ts';
import { loadReport } from './report-data.ts';
import { AgentOpinionOutput, ChairOutput } from './schemas.ts';
import { DeliberationWriter, readDeliberation } from './writer.ts';
import { SECTIONS_BY_AGENT, type SpecialistInput } from './sections.ts';

export interface CommitteeDeps {
  app: Pick<AppContext, 'store' | 'clock'>;
  model: LanguageModel;
  /** Null: no search engine is configured, and nothing is searched. */
  webSearch: WebSearch | null;
  log: Logger;
}

const usageOf = (call: LanguageModelCall): CallUsage => ({ model: call.model, inputTokens: call.inputTokens, outputTokens: call.outputTokens, costUsd: call.costUsd, durationMs: call.durationMs });

function specialistInput(agent: SpecialistAgent, report: ReportState, requestedAmountCents: number | null): SpecialistInput {
  const facts = report.facts!;
  const sections: SpecialistInput['sections'] = {};
  for (const type of SECTIONS_BY_AGENT[agent]) {
    const result = report.results[type];
    if (result) sections[type] = { status: result.outcome, data: result.details };
  }
  return {
    agent,
    documentType: facts.type,
    policyDecision: facts.policyStatus,
    policyScore: facts.score,
    requestedAmountReais: requestedAmountCents === null ? null : requestedAmountCents / 100,
    sections,
  };
}

/**
 * The Cadastral agent searches the web for the company or person by the registry's name. The
 * results go into its input as untrusted text (the prompt says they are data, never instructions).
 */
async function withWebSearch(deps: CommitteeDeps, input: SpecialistInput): Promise<{ input: SpecialistInput; requests: number }> {
  const name = input.sections.BASIC_INFORMATION?.data?.name;
  if (!deps.webSearch || input.agent !== 'cadastral' || typeof name !== 'string' || !name.trim()) return { input, requests: 0 };
  const query = `${name} ${input.documentType === 'cnpj' ? 'empresa' : ''}`.trim();
  return { input: { ...input, webSearch: untrustedResults(query, await deps.webSearch.search(query)) }, requests: 1 };
}

/**
 * Run (or resume) one deliberation: the specialists not yet heard, side by side; then the chair;
 * then, under AUTO_DECIDE and inside the committee's alçada, the report's decision. Each opinion
 * is appended as it arrives, so a process that dies midway leaves only the rest to ask.
 * Any failure (a model that keeps answering invalid JSON, a timeout) ends the deliberation ERROR.
 */
export async function runDeliberation(deps: CommitteeDeps, deliberationId: string): Promise<void> {
  const { app } = deps;
  const stream = deliberationStream(deliberationId);
  const writer = new DeliberationWriter(app.store, stream, await readDeliberation(app.store, stream));
  if (writer.state.status !== 'RUNNING') return;
  const started = writer.state.started!;
  const heard = new Map(recordedOpinions(writer.state).map((r) => [r.opinion.agent, r.opinion]));
  const writes: Array<Promise<unknown>> = [];
  try {
    const report = await loadReport(app, started.reportId);
    const policy = await policyVersionsOf(app).get(started.policyId, started.policyVersion);
    await Promise.all(
      missingSpecialists(writer.state).map(async (agent) => {
        const { input, requests } = await withWebSearch(deps, specialistInput(agent, report, started.requestedAmountCents));
        const { output, call } = await deps.model.generate({
          agent: `committee.${agent}`,
          prompt: promptFor(policy, agent, started.promptVersionsByAgent[agent].baseVersion),
          input,
          schema: AgentOpinionOutput,
          offline: offlineOpinion,
        });
        const opinion = { agent, agentLabel: AGENT_LABELS[agent], ...output, model: call.model, costUsd: call.costUsd, sectionsSeen: Object.keys(input.sections) };
        heard.set(agent, opinion);
        // Not awaited here: the chair is asked while the opinions are written.
        writes.push(writer.write({ type: 'RecordAgentOpinion', opinion, usage: usageOf(call), webSearchRequests: requests, at: app.clock.now().toISOString() }));
      }),
    );
    const balance = report.results.BALANCE_SHEET?.details;
    const chairInput: ChairInput = {
      policyDecision: report.facts!.policyStatus,
      policyScore: report.facts!.score,
      requestedAmountReais: started.requestedAmountCents === null ? null : started.requestedAmountCents / 100,
      annualRevenueReais: typeof balance?.revenueCents === 'number' ? balance.revenueCents / 100 : null,
      opinions: SPECIALISTS.map((agent) => heard.get(agent)!).map(({ model: _m, costUsd: _c, sectionsSeen: _s, ...rest }) => rest),
    };
    const { output, call } = await deps.model.generate({
      agent: 'committee.chair',
      prompt: promptFor(policy, 'chair', started.promptVersionsByAgent.chair.baseVersion),
      input: chairInput,
      schema: ChairOutput,
      offline: offlineSynthesis,
    });
    await Promise.all(writes);
    const events = await writer.write({ type: 'FinishDeliberation', chair: output, usage: usageOf(call), at: app.clock.now().toISOString() });
    const finished = events.find((e): e is DeliberationFinished => e.type === 'DeliberationFinished');
    if (started.trigger === 'AUTO_DECIDE' && finished && (finished.data.finalRecommendation === 'APPROVED' || finished.data.finalRecommendation === 'REJECTED')) {
      await handleCommand(app.store, reportStream(started.reportId), reportDecider, {
        type: 'RecordCommitteeDecision',
        deliberationId,
        approved: finished.data.finalRecommendation === 'APPROVED',
        commentary: finished.data.synthesis.resumo,
        // The offline adapter answers with rules, not a model: what it decides is a sandbox result.
        sandbox: call.model === OFFLINE_MODEL,
        model: call.model,
        at: app.clock.now().toISOString(),
      });
    }
  } catch (error) {
    deps.log.warn({ err: error, deliberationId }, 'committee deliberation failed');
    await Promise.allSettled(writes);
    await writer.write({ type: 'FailDeliberation', error: errorText(error), at: app.clock.now().toISOString() });
  }
}

/** The caller sees why, in Portuguese; the log keeps the detail. */
function errorText(error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  return `A deliberação do comitê falhou: ${detail}`.slice(0, 1000);
}
