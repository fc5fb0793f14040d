import { evaluatePolicy, type EvaluationFacts, type PolicyEvaluation } from '../credit-policy/evaluate.ts';
import type { PolicySnapshot } from '../credit-policy/policy.ts';
import type { ReportEvent, ReportSectionUpdated } from './events.ts';
import type { ReportFacts } from './public-events.ts';
import { decisionProvenance } from './decided.ts';
import type { SectionResult, SectionType, SourceSectionType } from './sections.ts';
import type { ReportState } from './state.ts';

/** The explanation's integration name: the decision is ours, not a source's. */
export const POLICY_ENGINE_INTEGRATION = 'CREDIT_POLICY_ENGINE';

function summaryOf(state: ReportState, evaluation: PolicyEvaluation): Record<string, unknown> {
  const facts = state.facts!;
  const basic = state.results.BASIC_INFORMATION?.details;
  const sections = state.sourceSections.map((type) => {
    const result = state.results[type];
    return {
      type,
      status: result ? result.outcome : 'SKIPPED',
      errorCodes: result?.errors.map((e) => e.code) ?? [],
    };
  });
  return {
    document: facts.document,
    documentType: facts.type,
    name: typeof basic?.name === 'string' ? basic.name : null,
    decision: evaluation.decision,
    score: evaluation.score,
    policy: { id: evaluation.policyId, version: evaluation.policyVersion, name: evaluation.policyName },
    sections: [...sections, ...state.skipped.map((type) => ({ type, status: 'SKIPPED', errorCodes: [] }))],
    highlights: evaluation.reasons,
  };
}

function derivedSection(facts: ReportFacts, state: ReportState, type: SectionType, details: Record<string, unknown>, at: string): ReportSectionUpdated {
  return {
    type: 'ReportSectionUpdated',
    data: {
      ...facts,
      sectionId: state.sectionIds[type]!,
      sectionType: type,
      outcome: 'DONE',
      details,
      selectedIntegrations: [POLICY_ENGINE_INTEGRATION],
      errors: [],
      integrationCount: 1,
      updatedAt: at,
      provenance: decisionProvenance(facts, POLICY_ENGINE_INTEGRATION),
    },
  };
}

/** What a policy reads from a report whose sources all answered: the data that arrived, the failures, the inputs. */
export function evaluationFactsOf(state: ReportState): EvaluationFacts {
  const facts = state.facts!;
  const sections: Partial<Record<SourceSectionType, Record<string, unknown>>> = {};
  const failures: Array<{ sectionType: SourceSectionType; codes: SectionResult['errors'][number]['code'][] }> = [];
  for (const type of state.sourceSections) {
    const result = state.results[type]!;
    if (result.outcome === 'DONE' && result.details) sections[type] = result.details;
    else failures.push({ sectionType: type, codes: result.errors.map((e) => e.code) });
  }
  return { documentType: facts.type, document: facts.document, sections, failures, skipped: state.skipped, inputs: state.inputs };
}

/**
 * Every source answered: apply the policy and record the decision, in one append, so a report
 * is never seen finished without its decision. All these events carry the decided facts.
 */
export function finalizeReport(state: ReportState, policy: PolicySnapshot, at: string): ReportEvent[] {
  const before = state.facts!;
  const evaluationFacts = evaluationFactsOf(state);
  const { failures } = evaluationFacts;
  const evaluation = evaluatePolicy(policy, evaluationFacts);
  const decision = evaluation.decision;
  const facts: ReportFacts = { ...before, status: decision, policyStatus: decision, score: evaluation.score };
  return [
    {
      type: 'ReportSourcesFinished',
      data: { ...facts, finishedAt: at, failedSections: failures.map((f) => f.sectionType), skippedSections: state.skipped },
    },
    derivedSection(facts, state, 'CREDIT_POLICY', evaluation as unknown as Record<string, unknown>, at),
    derivedSection(facts, state, 'SUMMARY', summaryOf(state, evaluation), at),
    {
      type: 'CreditPolicyEvaluated',
      data: {
        ...facts,
        decision,
        previousPolicyStatus: before.policyStatus,
        policyErrorStatusApplied: evaluation.policyErrorStatusApplied,
        evaluatedAt: at,
      },
    },
    {
      type: 'ReportDecided',
      data: {
        ...facts,
        decision,
        kind: 'AUTOMATIC',
        decidedBy: 'POLICY',
        previousStatus: before.status,
        previousPolicyStatus: before.policyStatus,
        analystId: null,
        analystName: null,
        previousAnalystId: null,
        commentary: null,
        decidedAt: at,
        provenance: decisionProvenance(facts, POLICY_ENGINE_INTEGRATION),
      },
    },
  ];
}
