import type { ReadProvenance } from '../../domain/shared/provenance.ts';
import { deliberationProvenance } from '../../domain/committee/provenance.ts';
import type { Knex } from 'knex';
import type { CommitteeAgent } from '../../domain/committee/agents.ts';
import type { AgentOpinion, CallUsage, DeliberationStarted, DeliberationTrigger, FinalRecommendation, Synthesis } from '../../domain/committee/events.ts';
import { SPECIALISTS, type DeliberationStatus } from '../../domain/committee/state.ts';

/** A deliberation with every field of the spec's Committee deliberation resource. */
export interface DeliberationView {
  id: string;
  reportId: string;
  organizationId: string;
  policyId: string;
  policyVersion: number;
  trigger: DeliberationTrigger;
  status: DeliberationStatus;
  agentOpinions: AgentOpinion[];
  synthesis: Synthesis | null;
  finalRecommendation: FinalRecommendation | null;
  confidence: number | null;
  promptVersion: string;
  customPrompts: boolean;
  promptVersionsByAgent: Record<CommitteeAgent, { baseVersion: string; orgVersion: number | null }>;
  totalInputTokens: number;
  totalOutputTokens: number;
  totalCostUsd: number;
  webSearchRequests: number;
  durationMs: number | null;
  modelVersions: Record<string, string>;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  /** The chair's model (or the specialists' while RUNNING) and whether the deliberation is a sandbox result. */
  provenance: ReadProvenance;
}

type Usage = CallUsage & { webSearchRequests: number };

/** A committee_deliberations row as pg returns it (jsonb parsed, timestamps as Date). */
interface DeliberationRow {
  id: string;
  organization_id: string;
  report_id: string;
  policy_id: string;
  policy_version: number;
  trigger: DeliberationTrigger;
  status: DeliberationStatus;
  prompt_version: string;
  custom_prompts: boolean;
  prompt_versions_by_agent: DeliberationView['promptVersionsByAgent'];
  agent_opinions: Partial<Record<string, AgentOpinion>>;
  usage_by_agent: Record<string, Usage>;
  synthesis: Synthesis | null;
  final_recommendation: FinalRecommendation | null;
  confidence: number | null;
  totals: { inputTokens: number; outputTokens: number; costUsd: number; webSearchRequests: number } | null;
  model_versions: Record<string, string> | null;
  duration_ms: number | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  /** The report holds sandbox data (report_reports.sandbox; null: the report row is not there). */
  report_sandbox?: boolean | null;
}

/** While RUNNING the totals are those of the opinions recorded so far; a finished row has the decider's. */
function viewOf(row: DeliberationRow): DeliberationView {
  const usages = Object.values(row.usage_by_agent);
  const totals = row.totals ?? {
    inputTokens: usages.reduce((sum, u) => sum + u.inputTokens, 0),
    outputTokens: usages.reduce((sum, u) => sum + u.outputTokens, 0),
    costUsd: Math.round(usages.reduce((sum, u) => sum + u.costUsd, 0) * 1e6) / 1e6,
    webSearchRequests: usages.reduce((sum, u) => sum + u.webSearchRequests, 0),
  };
  const opinions = row.agent_opinions;
  const modelVersions = row.model_versions ?? (usages.length ? { specialists: [...new Set(usages.map((u) => u.model))].join(', ') } : {});
  return {
    id: row.id,
    reportId: row.report_id,
    organizationId: row.organization_id,
    policyId: row.policy_id,
    policyVersion: row.policy_version,
    trigger: row.trigger,
    status: row.status,
    agentOpinions: SPECIALISTS.flatMap((agent) => (opinions[agent] ? [opinions[agent]] : [])),
    synthesis: row.synthesis,
    finalRecommendation: row.final_recommendation,
    confidence: row.confidence,
    promptVersion: row.prompt_version,
    customPrompts: row.custom_prompts,
    promptVersionsByAgent: row.prompt_versions_by_agent,
    totalInputTokens: totals.inputTokens,
    totalOutputTokens: totals.outputTokens,
    totalCostUsd: totals.costUsd,
    webSearchRequests: totals.webSearchRequests,
    durationMs: row.duration_ms,
    modelVersions,
    error: row.error,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    provenance: deliberationProvenance(modelVersions, row.report_sandbox ?? null),
  };
}

/** A deliberation just started, as the read model will show it: the reply when the projection is still behind. */
export function startedView(d: DeliberationStarted['data']): DeliberationView {
  return {
    id: d.deliberationId,
    reportId: d.reportId,
    organizationId: d.organizationId,
    policyId: d.policyId,
    policyVersion: d.policyVersion,
    trigger: d.trigger,
    status: 'RUNNING',
    agentOpinions: [],
    synthesis: null,
    finalRecommendation: null,
    confidence: null,
    promptVersion: d.promptVersion,
    customPrompts: d.customPrompts,
    promptVersionsByAgent: d.promptVersionsByAgent,
    totalInputTokens: 0,
    totalOutputTokens: 0,
    totalCostUsd: 0,
    webSearchRequests: 0,
    durationMs: null,
    modelVersions: {},
    error: null,
    createdAt: d.startedAt,
    updatedAt: d.startedAt,
    provenance: { provider: null, sandbox: null },
  };
}

/** The report's latest deliberation in the organization (a rerun is newer), or null. */
export async function latestDeliberation(db: Knex, organizationId: string, reportId: string): Promise<DeliberationView | null> {
  const row: DeliberationRow | undefined = await db('committee_deliberations')
    .select('committee_deliberations.*', db.raw('(select r.sandbox from report_reports r where r.id = committee_deliberations.report_id) as report_sandbox'))
    .where({ organization_id: organizationId, report_id: reportId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first();
  return row ? viewOf(row) : null;
}

/**
 * Deliberations still RUNNING whose start the runner's checkpoint has passed: the runner only
 * moves past a start once its reaction returned, so nobody will run these again (it gave up on
 * them after its retries, the store failing under it).
 */
export async function orphanedDeliberations(db: Knex, runnerCheckpoint: string, limit = 100): Promise<string[]> {
  const checkpoint = await db('projection_checkpoints').where({ name: runnerCheckpoint }).first('commit_position', 'prepare_position');
  if (!checkpoint) return [];
  const rows = await db('committee_deliberations')
    .where({ status: 'RUNNING' })
    .andWhereRaw('(started_commit, started_prepare) <= (?::bigint, ?::bigint)', [checkpoint.commit_position, checkpoint.prepare_position])
    .orderBy('started_commit')
    .limit(limit)
    .select('id');
  return rows.map((r) => r.id as string);
}
