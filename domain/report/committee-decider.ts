import { decisionProvenance, reportDecided } from './decided.ts';
import type { ReportEvent } from './events.ts';
import type { ReportState } from './state.ts';

/**
 * The committee deciding a report (trigger AUTO_DECIDE, inside the alçada the policy gives it).
 * A human decision stands: once an analyst decided, the committee's result is only advice and
 * nothing is appended. A report still processing has nothing to decide yet.
 */
export interface RecordCommitteeDecision {
  type: 'RecordCommitteeDecision';
  deliberationId: string;
  approved: boolean;
  /** The chair's resumo, kept with the decision so the trail says why. */
  commentary: string;
  /** The chair was the offline model (deterministic rules): a sandbox decision, shown as one wherever the report shows it. */
  sandbox: boolean;
  /** The chair's model, named as the decision's provider. */
  model: string;
  at: string;
}

export function recordCommitteeDecision(command: RecordCommitteeDecision, state: ReportState): ReportEvent[] {
  const before = state.facts;
  if (!before || !state.decided || state.manualAnalysis) return [];
  const committee = { kind: 'COMMITTEE', decidedBy: 'COMMITTEE', analystId: null, analystName: null, previousAnalystId: null } as const;
  const decided = reportDecided(before, command.approved, committee, command.commentary, command.at, decisionProvenance(before, command.model, command.sandbox));
  return [command.sandbox ? { ...decided, data: { ...decided.data, sandbox: true } } : decided];
}
