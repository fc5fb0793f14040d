import { COMMITTEE_AGENTS } from './agents.ts';
import type { AgentOpinion, CallUsage, DeliberationEvent, DeliberationFacts, DeliberationStarted, SpecialistAgent } from './events.ts';

export const SPECIALISTS = COMMITTEE_AGENTS.filter((a): a is SpecialistAgent => a !== 'chair');

export type DeliberationStatus = 'RUNNING' | 'DONE' | 'ERROR';

export interface DeliberationState {
  facts: DeliberationFacts | null;
  status: DeliberationStatus | null;
  started: DeliberationStarted['data'] | null;
  /** Recorded opinions by agent: a resumed deliberation asks only the others. */
  opinions: Partial<Record<SpecialistAgent, { opinion: AgentOpinion; usage: CallUsage; webSearchRequests: number }>>;
}

export function initialDeliberationState(): DeliberationState {
  return { facts: null, status: null, started: null, opinions: {} };
}

/** Opinions in the committee's order (not the order they arrived in). */
export function recordedOpinions(state: DeliberationState) {
  return SPECIALISTS.flatMap((agent) => (state.opinions[agent] ? [state.opinions[agent]] : []));
}

export function missingSpecialists(state: DeliberationState): SpecialistAgent[] {
  return SPECIALISTS.filter((agent) => !state.opinions[agent]);
}

export function factsOfDeliberation(data: DeliberationFacts): DeliberationFacts {
  const { deliberationId, organizationId, reportId, reportCreatedAt, document, externalId, policyId, policyVersion, trigger, sandboxData } = data;
  return { deliberationId, organizationId, reportId, reportCreatedAt, document, externalId, policyId, policyVersion, trigger, ...(sandboxData ? { sandboxData } : {}) };
}

export function evolveDeliberation(state: DeliberationState, event: DeliberationEvent): DeliberationState {
  switch (event.type) {
    case 'DeliberationStarted':
      return { ...state, facts: factsOfDeliberation(event.data), status: 'RUNNING', started: event.data };
    case 'AgentOpinionRecorded': {
      const { opinion, usage, webSearchRequests } = event.data;
      return { ...state, opinions: { ...state.opinions, [opinion.agent]: { opinion, usage, webSearchRequests } } };
    }
    case 'DeliberationFinished':
      return { ...state, status: 'DONE' };
    case 'DeliberationFailed':
      return { ...state, status: 'ERROR' };
  }
}
