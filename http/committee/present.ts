import type { DeliberationView } from '../../projections/committee/queries.ts';

/** committeeStatus, committeeDecision and committeeResult of a report, from its latest deliberation (null: never convened). */
export function presentReportCommittee(view: DeliberationView | null) {
  if (!view) return { committeeStatus: null, committeeDecision: null, committeeResult: null };
  return {
    committeeStatus: view.status,
    committeeDecision: view.finalRecommendation,
    committeeResult: {
      deliberationId: view.id,
      synthesis: view.synthesis,
      agentOpinions: view.agentOpinions,
      confidence: view.confidence,
      costUsd: view.totalCostUsd,
      durationMs: view.durationMs,
      models: view.modelVersions,
      provenance: view.provenance,
    },
  };
}
