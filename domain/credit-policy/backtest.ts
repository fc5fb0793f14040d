import type { Decision } from '../report/statuses.ts';
import { evaluatePolicy, type EvaluationFacts } from './evaluate.ts';
import type { PolicySnapshot } from './policy.ts';

export const DECISIONS: readonly Decision[] = ['APPROVED', 'MANUAL_ANALYSIS', 'DENIED'];

/** A finalized report as the backtest replays it: its stored section data and the decision its policy gave. */
export interface BacktestCase {
  reportId: string;
  document: string;
  createdAt: string;
  before: Decision;
  facts: EvaluationFacts;
}

export interface BacktestOutcome {
  reportId: string;
  document: string;
  createdAt: string;
  before: Decision;
  after: Decision;
  score: number;
  /** Rules of the draft that could not be judged on this report's data (a section it never queried). */
  unjudged: string[];
}

export interface BacktestResult {
  total: number;
  changed: number;
  /** matrix[before][after]: how many reports go from one decision to the other. */
  matrix: Record<Decision, Record<Decision, number>>;
  /** Every report replayed, the changed ones first, newest first within each. */
  outcomes: BacktestOutcome[];
}

/**
 * A draft policy over reports already decided, in memory: nothing is written. The data is what
 * the sources answered then, so a rule reading a section those reports never queried is not
 * judged (it acts as the policy's missing-data rule says) and is listed per report.
 */
export function backtest(draft: PolicySnapshot, cases: readonly BacktestCase[]): BacktestResult {
  const matrix = Object.fromEntries(DECISIONS.map((b) => [b, Object.fromEntries(DECISIONS.map((a) => [a, 0]))])) as BacktestResult['matrix'];
  const outcomes = cases.map((c): BacktestOutcome => {
    const evaluation = evaluatePolicy(draft, c.facts);
    matrix[c.before][evaluation.decision]++;
    const unjudged = evaluation.groups.flatMap((g) => g.rules.filter((r) => r.passed === null).map((r) => r.name));
    return { reportId: c.reportId, document: c.document, createdAt: c.createdAt, before: c.before, after: evaluation.decision, score: evaluation.score, unjudged };
  });
  const changedFirst = (o: BacktestOutcome) => (o.before === o.after ? 1 : 0);
  outcomes.sort((a, b) => changedFirst(a) - changedFirst(b) || b.createdAt.localeCompare(a.createdAt));
  return { total: cases.length, changed: outcomes.filter((o) => o.before !== o.after).length, matrix, outcomes };
}
