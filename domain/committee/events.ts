import type { DomainEvent } from '../shared/decider.ts';
import type { CommitteeAgent } from './agents.ts';

export const DELIBERATION_CATEGORY = 'deliberation';
export const deliberationStream = (deliberationId: string) => `${DELIBERATION_CATEGORY}-${deliberationId}`;

export type DeliberationTrigger = 'AUTO_SUGGEST' | 'AUTO_DECIDE' | 'MANUAL' | 'RERUN';
export type RiskLevel = 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';
export const RISK_LEVELS: readonly RiskLevel[] = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];
/** A specialist's vote (spec: APPROVE and APPROVE_WITH_RESTRICTION seen; REJECT and NEEDS_INFO ours). */
export type AgentRecommendation = 'APPROVE' | 'APPROVE_WITH_RESTRICTION' | 'REJECT' | 'NEEDS_INFO';
/** What the chair decides; finalRecommendation adds REQUIRES_ALCADA when the case is beyond the committee. */
export type CommitteeDecision = 'APPROVED' | 'REJECTED' | 'NEEDS_INFO';
export type FinalRecommendation = CommitteeDecision | 'REQUIRES_ALCADA';
export type SpecialistAgent = Exclude<CommitteeAgent, 'chair'>;

/** One line of the policy's authority table: a level decides up to this amount and this risk. */
export interface Alcada {
  level: string;
  maxAmountCents: number;
  maxRiskLevel: RiskLevel;
}

/** The policy's committee settings as the deliberation started with them. */
export interface CommitteeSettings {
  alcadas: Alcada[];
  /** The highest level the committee may decide alone; null: it only recommends. */
  committeeMaxLevel: string | null;
}

export interface AgentOpinion {
  agent: SpecialistAgent;
  agentLabel: string;
  score: number;
  resumo: string;
  parecer: string;
  redFlags: Array<{ severity: 'WARNING' | 'CRITICAL'; label: string; detail: string }>;
  positiveFactors: Array<{ label: string; detail: string }>;
  confidence: number;
  infoGaps: string[];
  recommendation: AgentRecommendation;
  model: string;
  costUsd: number;
  sectionsSeen: string[];
}

/** What one language-model call used, kept for the totals. */
export interface CallUsage {
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  durationMs: number;
}

export interface LimitReview {
  status: string;
  /** Reais. */
  limite: number;
  /** Percent a month. */
  taxa: number;
  /** Months. */
  prazo: number;
  justificativa: string;
}

/** What the chair writes; dissentLog and alcadaLevel are added by code. */
export interface ChairSynthesis {
  decision: CommitteeDecision;
  resumo: string;
  reasoning: string;
  proximaAcao: string;
  conditions: string[];
  monitoringItems: string[];
  infoGapsBeforeDecision: string[];
  limitReview: LimitReview;
  confidence: number;
}

export interface Synthesis extends ChairSynthesis {
  dissentLog: Array<{ agent: SpecialistAgent; divergedHow: string }>;
  alcadaLevel: string | null;
}

/** In every deliberation event: who it belongs to and what a COMMITTEE_FINISHED subscriber needs. */
export interface DeliberationFacts {
  deliberationId: string;
  organizationId: string;
  reportId: string;
  /** The report's creation: COMMITTEE_FINISHED goes only for reports created after the subscription. */
  reportCreatedAt: string;
  document: string;
  externalId: string | null;
  policyId: string;
  policyVersion: number;
  trigger: DeliberationTrigger;
  /** The report read held sandbox data when the deliberation started (ReportFacts.sandboxData). Absent: it held none. */
  sandboxData?: true;
}

export type DeliberationStarted = DomainEvent<
  'DeliberationStarted',
  DeliberationFacts & {
    userId: string | null;
    promptVersion: string;
    promptVersionsByAgent: Record<CommitteeAgent, { baseVersion: string; orgVersion: number | null }>;
    customPrompts: boolean;
    settings: CommitteeSettings;
    /** From the report's inputs (proposta.valor_pedido) when the proposals module fed one. */
    requestedAmountCents: number | null;
    startedAt: string;
  }
>;

export type AgentOpinionRecorded = DomainEvent<'AgentOpinionRecorded', DeliberationFacts & { opinion: AgentOpinion; usage: CallUsage; webSearchRequests: number; recordedAt: string }>;

export type DeliberationFinished = DomainEvent<
  'DeliberationFinished',
  DeliberationFacts & {
    synthesis: Synthesis;
    finalRecommendation: FinalRecommendation;
    riskLevel: RiskLevel;
    /** The amount the alçada was computed for: requested, else the limit the chair reviewed. */
    amountCents: number;
    chairUsage: CallUsage;
    totals: { inputTokens: number; outputTokens: number; costUsd: number; webSearchRequests: number };
    modelVersions: Record<string, string>;
    durationMs: number;
    finishedAt: string;
  }
>;

export type DeliberationFailed = DomainEvent<'DeliberationFailed', DeliberationFacts & { error: string; durationMs: number; failedAt: string }>;

export type DeliberationEvent = DeliberationStarted | AgentOpinionRecorded | DeliberationFinished | DeliberationFailed;

export const DELIBERATION_EVENT_TYPES: readonly DeliberationEvent['type'][] = ['DeliberationStarted', 'AgentOpinionRecorded', 'DeliberationFinished', 'DeliberationFailed'];
