import type { DecisionKind, ReportDecided } from './events.ts';
import type { ReportFacts } from './public-events.ts';

/** Who decided, beyond the policy: an analyst (manual analysis) or the committee. */
export interface DecidedBy {
  kind: DecisionKind;
  decidedBy: ReportDecided['data']['decidedBy'];
  analystId: string | null;
  analystName: string | null;
  previousAnalystId: string | null;
}

/** The report decided by a person or the committee: its status and policy status become the decision. */
export function reportDecided(before: ReportFacts, approved: boolean, by: DecidedBy, commentary: string | null, at: string): ReportDecided {
  const decision = approved ? 'APPROVED' : 'DENIED';
  return {
    type: 'ReportDecided',
    data: { ...before, status: decision, policyStatus: decision, decision, ...by, previousStatus: before.status, previousPolicyStatus: before.policyStatus, commentary, decidedAt: at },
  };
}
