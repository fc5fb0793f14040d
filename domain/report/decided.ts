import type { DecisionKind, ReportDecided } from './events.ts';
import type { ReportFacts } from './public-events.ts';
import type { Provenance } from '../shared/provenance.ts';

/** Who decides an analyst's decision, as its provenance names them. */
export const ANALYST_PROVIDER = 'ANALYST';

/**
 * A decision's provenance: a sandbox result when its producer is one (the offline model) or when
 * it was taken on a report holding sandbox data, whoever took it: a decision on a made-up person
 * is not a real one.
 */
export function decisionProvenance(facts: ReportFacts, provider: string, producerSandbox = false): Provenance {
  return { provider, sandbox: producerSandbox || facts.sandboxData === true };
}

/** Who decided, beyond the policy: an analyst (manual analysis) or the committee. */
export interface DecidedBy {
  kind: DecisionKind;
  decidedBy: ReportDecided['data']['decidedBy'];
  analystId: string | null;
  analystName: string | null;
  previousAnalystId: string | null;
}

/** The report decided by a person or the committee: its status and policy status become the decision. */
export function reportDecided(before: ReportFacts, approved: boolean, by: DecidedBy, commentary: string | null, at: string, provenance: Provenance): ReportDecided {
  const decision = approved ? 'APPROVED' : 'DENIED';
  return {
    type: 'ReportDecided',
    data: { ...before, status: decision, policyStatus: decision, decision, ...by, previousStatus: before.status, previousPolicyStatus: before.policyStatus, commentary, decidedAt: at, provenance },
  };
}
