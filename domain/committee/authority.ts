import { AGENT_LABELS } from './agents.ts';
import {
  RISK_LEVELS,
  type AgentOpinion,
  type AgentRecommendation,
  type Alcada,
  type CommitteeDecision,
  type CommitteeSettings,
  type FinalRecommendation,
  type RiskLevel,
  type Synthesis,
} from './events.ts';

/**
 * What code decides, not the model (issue 12): the risk of the case, the authority level (alçada)
 * it needs, whether the committee may decide it, and who dissented from the final decision.
 */

const riskRank = (risk: RiskLevel) => RISK_LEVELS.indexOf(risk);

export const hasCriticalRedFlag = (opinions: readonly AgentOpinion[]) => opinions.some((o) => o.redFlags.some((f) => f.severity === 'CRITICAL'));

/** The mean specialist score on 0..10 read as risk; a CRITICAL red flag makes the case CRITICAL. */
export function riskLevelOf(opinions: readonly AgentOpinion[]): RiskLevel {
  if (hasCriticalRedFlag(opinions)) return 'CRITICAL';
  const mean = opinions.reduce((sum, o) => sum + o.score, 0) / Math.max(1, opinions.length);
  if (mean >= 7) return 'LOW';
  if (mean >= 5) return 'MEDIUM';
  if (mean >= 3) return 'HIGH';
  return 'CRITICAL';
}

/** The first level of the table (lowest authority first) that covers both the amount and the risk; null when none does. */
export function alcadaLevelFor(alcadas: readonly Alcada[], amountCents: number, risk: RiskLevel): string | null {
  const level = alcadas.find((a) => amountCents <= a.maxAmountCents && riskRank(risk) <= riskRank(a.maxRiskLevel));
  return level?.level ?? null;
}

/** The committee decides alone only at a level no higher than committeeMaxLevel in the same table. */
export function withinCommitteeAuthority(settings: CommitteeSettings, level: string | null): boolean {
  if (level === null || settings.committeeMaxLevel === null) return false;
  const levels = settings.alcadas.map((a) => a.level);
  const max = levels.indexOf(settings.committeeMaxLevel);
  return max >= 0 && levels.indexOf(level) <= max;
}

/**
 * A CRITICAL red flag never lets the committee approve by itself, whatever the model wrote and
 * whatever alçada the table grants: the prompts say so too, but a prompt is not a control.
 */
export function finalRecommendationOf(decision: CommitteeDecision, withinAuthority: boolean, criticalRedFlag: boolean): FinalRecommendation {
  if (decision === 'NEEDS_INFO') return 'NEEDS_INFO';
  if (decision === 'APPROVED' && criticalRedFlag) return 'REQUIRES_ALCADA';
  return withinAuthority ? decision : 'REQUIRES_ALCADA';
}

const DIRECTION: Record<AgentRecommendation, CommitteeDecision> = {
  APPROVE: 'APPROVED',
  APPROVE_WITH_RESTRICTION: 'APPROVED',
  REJECT: 'REJECTED',
  NEEDS_INFO: 'NEEDS_INFO',
};

const RECOMMENDATION_TEXT: Record<AgentRecommendation, string> = {
  APPROVE: 'aprovação',
  APPROVE_WITH_RESTRICTION: 'aprovação com restrições',
  REJECT: 'reprovação',
  NEEDS_INFO: 'mais informações antes de decidir',
};

const DECISION_TEXT: Record<CommitteeDecision, string> = { APPROVED: 'aprovar', REJECTED: 'reprovar', NEEDS_INFO: 'pedir mais informações' };

/** Every specialist whose vote points elsewhere than the final decision, in the committee's order. */
export function dissentLogOf(opinions: readonly AgentOpinion[], decision: CommitteeDecision): Synthesis['dissentLog'] {
  return opinions
    .filter((o) => DIRECTION[o.recommendation] !== decision)
    .map((o) => ({
      agent: o.agent,
      divergedHow: `${AGENT_LABELS[o.agent]} recomendou ${RECOMMENDATION_TEXT[o.recommendation]} (nota ${o.score}/10); o comitê decidiu ${DECISION_TEXT[decision]}.`,
    }));
}
