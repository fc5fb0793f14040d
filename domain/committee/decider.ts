import type { Decider } from '../shared/decider.ts';
import { alcadaLevelFor, dissentLogOf, finalRecommendationOf, hasCriticalRedFlag, riskLevelOf, withinCommitteeAuthority } from './authority.ts';
import type { CallUsage, ChairSynthesis, DeliberationEvent, DeliberationFacts, DeliberationStarted } from './events.ts';
import { evolveDeliberation, initialDeliberationState, missingSpecialists, recordedOpinions, type DeliberationState } from './state.ts';

export type DeliberationCommand =
  | ({ type: 'StartDeliberation'; facts: DeliberationFacts; at: string } & Omit<DeliberationStarted['data'], keyof DeliberationFacts | 'startedAt'>)
  | ({ type: 'RecordAgentOpinion'; at: string } & Pick<Extract<DeliberationEvent, { type: 'AgentOpinionRecorded' }>['data'], 'opinion' | 'usage' | 'webSearchRequests'>)
  | { type: 'FinishDeliberation'; chair: ChairSynthesis; usage: CallUsage; at: string }
  | { type: 'FailDeliberation'; error: string; at: string };

const elapsed = (from: string, to: string) => Math.max(0, Date.parse(to) - Date.parse(from));

/**
 * Totals, authority and dissent are computed here from the recorded opinions and the chair's
 * text, so the model can never award itself an alçada or hide a dissenting vote.
 */
function finish(command: Extract<DeliberationCommand, { type: 'FinishDeliberation' }>, state: DeliberationState): DeliberationEvent[] {
  const started = state.started!;
  if (missingSpecialists(state).length > 0) throw new Error(`deliberation ${started.deliberationId} finished before every specialist spoke`);
  const recorded = recordedOpinions(state);
  const opinions = recorded.map((r) => r.opinion);
  const riskLevel = riskLevelOf(opinions);
  const amountCents = started.requestedAmountCents ?? Math.round(command.chair.limitReview.limite * 100);
  const alcadaLevel = alcadaLevelFor(started.settings.alcadas, amountCents, riskLevel);
  const usages = [...recorded.map((r) => r.usage), command.usage];
  const specialistModels = [...new Set(recorded.map((r) => r.usage.model))];
  return [
    {
      type: 'DeliberationFinished',
      data: {
        ...state.facts!,
        synthesis: { ...command.chair, dissentLog: dissentLogOf(opinions, command.chair.decision), alcadaLevel },
        finalRecommendation: finalRecommendationOf(command.chair.decision, withinCommitteeAuthority(started.settings, alcadaLevel), hasCriticalRedFlag(opinions)),
        riskLevel,
        amountCents,
        chairUsage: command.usage,
        totals: {
          inputTokens: usages.reduce((sum, u) => sum + u.inputTokens, 0),
          outputTokens: usages.reduce((sum, u) => sum + u.outputTokens, 0),
          // Micro-dollar rounding keeps a sum of binary fractions readable.
          costUsd: Math.round(usages.reduce((sum, u) => sum + u.costUsd, 0) * 1e6) / 1e6,
          webSearchRequests: recorded.reduce((sum, r) => sum + r.webSearchRequests, 0),
        },
        modelVersions: { specialists: specialistModels.join(', '), chair: command.usage.model },
        durationMs: elapsed(started.startedAt, command.at),
        finishedAt: command.at,
      },
    },
  ];
}

/**
 * Every command but the start is a no-op once the deliberation ended, and a repeated start or
 * opinion changes nothing: the runner replays after a crash (docs/committee.md) and must be able
 * to send the same command twice.
 */
export const deliberationDecider: Decider<DeliberationCommand, DeliberationEvent, DeliberationState> = {
  initialState: initialDeliberationState,
  evolve: evolveDeliberation,
  decide(command, state) {
    if (command.type === 'StartDeliberation') {
      if (state.started) return [];
      const { type: _, facts, at, ...rest } = command;
      return [{ type: 'DeliberationStarted', data: { ...facts, ...rest, startedAt: at } }];
    }
    if (state.status !== 'RUNNING') return [];
    switch (command.type) {
      case 'RecordAgentOpinion': {
        if (state.opinions[command.opinion.agent]) return [];
        const { opinion, usage, webSearchRequests, at } = command;
        return [{ type: 'AgentOpinionRecorded', data: { ...state.facts!, opinion, usage, webSearchRequests, recordedAt: at } }];
      }
      case 'FinishDeliberation':
        return finish(command, state);
      case 'FailDeliberation':
        return [{ type: 'DeliberationFailed', data: { ...state.facts!, error: command.error, durationMs: elapsed(state.started!.startedAt, command.at), failedAt: command.at } }];
    }
  },
};
