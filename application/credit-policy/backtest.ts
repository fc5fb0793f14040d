import { backtest, type BacktestCase, type BacktestResult } from '../../domain/credit-policy/backtest.ts';
import type { PolicyContent } from '../../domain/credit-policy/policy.ts';
import { validatePolicyContent } from '../../domain/credit-policy/validate.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { reportDecider } from '../../domain/report/decider.ts';
import { reportStream } from '../../domain/report/events.ts';
import { evaluationFactsOf } from '../../domain/report/finalize.ts';
import { latestFinalizedReportIds } from '../../projections/report/queries.ts';
import { loadState } from '../command-handler.ts';
import type { AppContext } from '../context.ts';

export const BACKTEST_LIMIT = { default: 100, max: 500 } as const;
/** Report streams read at once: enough to hide the round trips, few enough to leave the pool to requests. */
const READ_CONCURRENCY = 8;

async function caseOf(app: AppContext, reportId: string): Promise<BacktestCase | null> {
  const { state } = await loadState(app.store, reportStream(reportId), reportDecider);
  if (!state.facts || !state.policyDecision) return null;
  return {
    reportId,
    document: state.facts.document,
    createdAt: state.facts.reportCreatedAt,
    // The policy's own decision, not an analyst's or the committee's later one: the backtest compares policies.
    before: state.policyDecision,
    facts: evaluationFactsOf(state),
  };
}

/**
 * Run a draft policy over the organization's latest `limit` finalized reports of its document
 * type, from their own streams (what the sources answered then, whatever policy decided them),
 * and count how the decisions would move. Reads only: no report, event or version is written.
 */
export async function backtestPolicy(app: AppContext, principal: Principal, draft: PolicyContent, limit: number): Promise<BacktestResult> {
  validatePolicyContent(draft);
  const ids = await latestFinalizedReportIds(app.db, principal.organizationId, draft.documentType, Math.min(limit, BACKTEST_LIMIT.max));
  const cases: BacktestCase[] = [];
  for (let i = 0; i < ids.length; i += READ_CONCURRENCY) {
    const read = await Promise.all(ids.slice(i, i + READ_CONCURRENCY).map((id) => caseOf(app, id)));
    cases.push(...read.filter((c): c is BacktestCase => c !== null));
  }
  return backtest({ ...draft, policyId: 'rascunho', version: 0 }, cases);
}
