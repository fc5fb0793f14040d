import type { DocumentType } from '../shared/document.ts';
import type { Decision } from '../report/statuses.ts';
import type { SectionErrorCode, SourceSectionType } from '../report/sections.ts';
import type { CommitteeAgent } from '../committee/agents.ts';

/**
 * A credit policy as a risk team writes it (docs/reports.md explains each part). The spec does
 * not show the record; this is our design. Every edit is a new immutable version, and a report
 * keeps the version it ran under, so a decision can always be explained by the rules of its day.
 */

/** A JSON Logic expression (jsonlogic.com), evaluated by json-logic-engine. */
export type JsonLogic = unknown;

/** What a failed rule does to the decision. */
export type RuleAction = 'DENY' | 'MANUAL_ANALYSIS';

export interface PolicyRule {
  /** Stable across versions, so reports of different versions can be compared rule by rule. */
  id: string;
  name: string;
  description: string | null;
  /** Passes when truthy. Reads section data as `<SECTION_TYPE>.<field>` and proposal inputs as `inputs.<key>`. */
  condition: JsonLogic;
  onFail: RuleAction;
}

export interface RuleGroup {
  id: string;
  name: string;
  rules: PolicyRule[];
}

/** A scorecard line: `points` (a number or an expression) are added when `when` holds (always when absent). */
export interface ScoreFactor {
  id: string;
  label: string;
  when: JsonLogic | null;
  points: number | JsonLogic;
}

/**
 * Bounds of a policy's numbers (docs/reports.md). A scorecard needs a few thousand points at
 * most; these leave room for any scale a risk team picks while every score, cut-off and sum of
 * factors stays exact and fits the read model's columns. A policy beyond them was once accepted
 * and then stopped the report projection for every tenant (issue 15).
 */
export const SCORE_BOUNDS = { min: -100_000, max: 100_000 } as const;
/** A factor may move the score across the whole range, no further. */
export const POINTS_BOUNDS = { min: SCORE_BOUNDS.min - SCORE_BOUNDS.max, max: SCORE_BOUNDS.max - SCORE_BOUNDS.min } as const;

export interface ScoreModel {
  /** Points before any factor. */
  base: number;
  min: number;
  max: number;
  /** A score at or above this may approve. */
  approveFrom: number;
  /** A score below this denies. Between the two cut-offs the report goes to manual analysis. */
  denyBelow: number;
  factors: ScoreFactor[];
}

/** What a failed source does to the decision: deny, send to an analyst, or decide on what arrived. */
export type SourceErrorStatus = 'DENIED' | 'MANUAL_ANALYSIS' | 'IGNORE';

/** Risk levels of AI opinions and of the committee's alçada table, lowest first. */
export const RISK_LEVELS = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** One step of the authority table (alçada): the committee level that may decide up to this amount and risk. */
export interface Alcada {
  level: string;
  maxAmountCents: number;
  maxRiskLevel: RiskLevel;
}

/** How the AI credit committee works under this policy (docs/committee.md). */
export interface CommitteePolicy {
  /** OFF: only a manual convocation; AUTO_SUGGEST: convened when a report finalizes, recommends; AUTO_DECIDE: may also decide within committeeMaxLevel. */
  trigger: 'OFF' | 'AUTO_SUGGEST' | 'AUTO_DECIDE';
  /** Lowest authority first; the first step whose amount and risk cover the request is the alçada. */
  alcadas: Alcada[];
  /** The highest level the committee itself may decide at (AUTO_DECIDE); null: never. */
  committeeMaxLevel: string | null;
  /** The organization's extra instructions per agent (module committee-custom-prompts), at most 4000 characters each. */
  instructions?: Partial<Record<CommitteeAgent, string>>;
  /**
   * The organization's instructions version (`orgVersion` of a deliberation): set by the policy
   * decider, 0 without instructions, a new number each time the instructions change.
   */
  instructionsVersion: number;
}

export interface PolicyContent {
  name: string;
  description: string | null;
  documentType: DocumentType;
  /** The sources queried, one section each. SUMMARY and CREDIT_POLICY are always added. */
  sections: SourceSectionType[];
  score: ScoreModel;
  groups: RuleGroup[];
  sourceErrors: Record<SectionErrorCode, SourceErrorStatus>;
  /** AI opinions per section when a report finalizes (organizations with module committee). */
  parecerEnabled: boolean;
  committee?: CommitteePolicy;
}

/** Versions written before the committee fields read as having them off. */
export const withCommitteeDefaults = (content: PolicyContent): PolicyContent => ({ ...content, parecerEnabled: content.parecerEnabled ?? false });

/** A version of a policy as a report carries it. */
export interface PolicySnapshot extends PolicyContent {
  policyId: string;
  version: number;
}

export const DECISION_SEVERITY: Record<Decision, number> = { APPROVED: 0, MANUAL_ANALYSIS: 1, DENIED: 2 };

export function mostSevere(decisions: readonly Decision[]): Decision {
  return decisions.reduce<Decision>((worst, d) => (DECISION_SEVERITY[d] > DECISION_SEVERITY[worst] ? d : worst), 'APPROVED');
}

/** Namespaces a rule may read besides the policy's sections. */
export const INPUTS_NAMESPACE = 'inputs';
export const DOCUMENT_NAMESPACE = 'document';
