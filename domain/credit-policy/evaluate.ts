import type { DocumentType } from '../shared/document.ts';
import type { Decision } from '../report/statuses.ts';
import type { SectionErrorCode, SourceSectionType } from '../report/sections.ts';
import { DOCUMENT_NAMESPACE, INPUTS_NAMESPACE, mostSevere, type JsonLogic, type PolicySnapshot, type RuleAction, type ScoreFactor, type SourceErrorStatus } from './policy.ts';
import { runLogic, truthy, valueAt, variablesOf } from './rule-engine.ts';

/** What the policy decides on: the data that arrived, what failed, what was not asked. */
export interface EvaluationFacts {
  documentType: DocumentType;
  document: string;
  sections: Partial<Record<SourceSectionType, Record<string, unknown>>>;
  failures: Array<{ sectionType: SourceSectionType; codes: SectionErrorCode[] }>;
  /** Sections the report did not query (SCR without the module). */
  skipped: SourceSectionType[];
  inputs: Record<string, unknown>;
}

/** `passed: null` means the rule could not be judged: it reads data that did not arrive. */
export interface RuleOutcome {
  id: string;
  name: string;
  description: string | null;
  onFail: RuleAction;
  passed: boolean | null;
  reason: string | null;
  facts: Record<string, unknown>;
}

export interface GroupOutcome {
  id: string;
  name: string;
  passed: boolean | null;
  rules: RuleOutcome[];
}

export interface FactorOutcome {
  id: string;
  label: string;
  applied: boolean | null;
  points: number;
  reason: string | null;
  facts: Record<string, unknown>;
}

/** The CREDIT_POLICY section: the decision and everything needed to explain it. */
export interface PolicyEvaluation {
  policyId: string;
  policyVersion: number;
  policyName: string;
  decision: Decision;
  score: number;
  scoreDecision: Decision;
  scoreModel: { base: number; min: number; max: number; approveFrom: number; denyBelow: number };
  ruleDecision: Decision;
  policyErrorStatusApplied: Exclude<SourceErrorStatus, 'IGNORE'> | null;
  groups: GroupOutcome[];
  scoreFactors: FactorOutcome[];
  sourceErrors: Array<{ sectionType: SourceSectionType; code: SectionErrorCode; status: SourceErrorStatus }>;
  skippedSections: SourceSectionType[];
  /** One line per thing that moved the decision, in Portuguese, for analysts and exports. */
  reasons: string[];
}

interface Judged {
  value: unknown;
  /** Why the expression could not be judged, or null. */
  missing: string | null;
  facts: Record<string, unknown>;
}

function judge(logic: JsonLogic, data: Record<string, unknown>, facts: EvaluationFacts): Judged {
  const read: Record<string, unknown> = {};
  let missing: string | null = null;
  for (const path of variablesOf(logic)) {
    const [root, key] = path.split('.');
    const value = valueAt(data, path);
    read[path] = value === undefined ? null : value;
    if (missing) continue;
    if (root === INPUTS_NAMESPACE) {
      if (key === undefined || !(key in facts.inputs)) missing = `o dado de entrada ${path} não foi informado`;
    } else if (root !== DOCUMENT_NAMESPACE && !(root! in facts.sections)) {
      const failure = facts.failures.find((f) => f.sectionType === root);
      missing = failure ? `a seção ${root} não retornou dados (${failure.codes.join(', ')})` : `a seção ${root} não foi consultada`;
    }
  }
  if (missing) return { value: undefined, missing, facts: read };
  try {
    return { value: runLogic(logic, data), missing: null, facts: read };
  } catch (error) {
    const e = error as { type?: string; message?: string };
    return { value: undefined, missing: `erro ao avaliar: ${e?.type ?? e?.message ?? String(error)}`, facts: read };
  }
}

function scoreFactor(factor: ScoreFactor, data: Record<string, unknown>, facts: EvaluationFacts): FactorOutcome {
  const outcome = (applied: boolean | null, points: number, reason: string | null, read: Record<string, unknown>): FactorOutcome => ({
    id: factor.id,
    label: factor.label,
    applied,
    points,
    reason,
    facts: read,
  });
  const condition = factor.when === null ? null : judge(factor.when, data, facts);
  if (condition?.missing) return outcome(null, 0, condition.missing, condition.facts);
  if (condition && !truthy(condition.value)) return outcome(false, 0, null, condition.facts);
  const amount = typeof factor.points === 'number' ? { value: factor.points, missing: null, facts: {} } : judge(factor.points, data, facts);
  const read = { ...condition?.facts, ...amount.facts };
  if (amount.missing) return outcome(null, 0, amount.missing, read);
  const value = Number(amount.value);
  if (!Number.isFinite(value)) return outcome(null, 0, 'os pontos não são um número', read);
  return outcome(true, value, null, read);
}

const ACTION_DECISION: Record<RuleAction, Decision> = { DENY: 'DENIED', MANUAL_ANALYSIS: 'MANUAL_ANALYSIS' };

/**
 * Apply a policy version to what the sources answered. The decision is the most severe of
 * three verdicts: the rules (a failed DENY rule denies, a failed MANUAL_ANALYSIS rule refers),
 * the score against its cut-offs, and the policy's status for failed sources. A rule that reads
 * data which did not arrive is not judged (passed null): the policy decides on what arrived and
 * its source-error status says how much that absence weighs.
 */
export function evaluatePolicy(policy: PolicySnapshot, facts: EvaluationFacts): PolicyEvaluation {
  const data: Record<string, unknown> = {
    ...facts.sections,
    [INPUTS_NAMESPACE]: facts.inputs,
    [DOCUMENT_NAMESPACE]: { type: facts.documentType, number: facts.document },
  };
  const reasons: string[] = [];

  const groups: GroupOutcome[] = policy.groups.map((group) => {
    const rules = group.rules.map((rule): RuleOutcome => {
      const judged = judge(rule.condition, data, facts);
      const passed = judged.missing ? null : truthy(judged.value);
      if (passed === false) reasons.push(`Regra "${rule.name}" não atendida: ${rule.onFail === 'DENY' ? 'nega' : 'envia para análise manual'}.`);
      if (passed === null) reasons.push(`Regra "${rule.name}" não avaliada: ${judged.missing}.`);
      return { id: rule.id, name: rule.name, description: rule.description, onFail: rule.onFail, passed, reason: judged.missing, facts: judged.facts };
    });
    const passed = rules.some((r) => r.passed === false) ? false : rules.some((r) => r.passed === null) ? null : true;
    return { id: group.id, name: group.name, passed, rules };
  });
  const ruleDecision = mostSevere(groups.flatMap((g) => g.rules.filter((r) => r.passed === false).map((r) => ACTION_DECISION[r.onFail])));

  const model = policy.score;
  const scoreFactors = model.factors.map((factor) => scoreFactor(factor, data, facts));
  const points = scoreFactors.reduce((sum, f) => sum + f.points, model.base);
  const score = Math.round(Math.min(model.max, Math.max(model.min, points)));
  const scoreDecision: Decision = score < model.denyBelow ? 'DENIED' : score >= model.approveFrom ? 'APPROVED' : 'MANUAL_ANALYSIS';
  if (scoreDecision === 'DENIED') reasons.push(`Pontuação ${score} abaixo do corte de negação (${model.denyBelow}).`);
  if (scoreDecision === 'MANUAL_ANALYSIS') reasons.push(`Pontuação ${score} abaixo do corte de aprovação (${model.approveFrom}).`);

  const sourceErrors = facts.failures
    .filter((f) => policy.sections.includes(f.sectionType))
    .flatMap((f) => f.codes.map((code) => ({ sectionType: f.sectionType, code, status: policy.sourceErrors[code] ?? ('MANUAL_ANALYSIS' as SourceErrorStatus) })));
  const errorStatuses = sourceErrors.flatMap((e) => (e.status === 'IGNORE' ? [] : [e.status]));
  const policyErrorStatusApplied = errorStatuses.length ? (mostSevere(errorStatuses) as PolicyEvaluation['policyErrorStatusApplied']) : null;
  for (const e of sourceErrors) {
    if (e.status !== 'IGNORE') reasons.push(`Seção ${e.sectionType} falhou (${e.code}): a política aplica ${e.status}.`);
  }

  const decision = mostSevere([ruleDecision, scoreDecision, ...(policyErrorStatusApplied ? [policyErrorStatusApplied] : [])]);
  if (decision === 'APPROVED') reasons.push('Todas as regras atendidas e pontuação dentro do corte de aprovação.');

  return {
    policyId: policy.policyId,
    policyVersion: policy.version,
    policyName: policy.name,
    decision,
    score,
    scoreDecision,
    scoreModel: { base: model.base, min: model.min, max: model.max, approveFrom: model.approveFrom, denyBelow: model.denyBelow },
    ruleDecision,
    policyErrorStatusApplied,
    groups,
    scoreFactors,
    sourceErrors,
    skippedSections: facts.skipped,
    reasons,
  };
}
