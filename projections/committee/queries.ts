import type { Knex } from 'knex';
import type { CommitteeAgent } from '../../domain/committee/agents.ts';
import type { AgentOpinion, CallUsage, DeliberationTrigger, FinalRecommendation, Synthesis } from '../../domain/committee/events.ts';
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
}

type Usage = CallUsage & { webSearchRequests: number };

/** While RUNNING the totals are those of the opinions recorded so far; a finished row has the decider's. */
function viewOf(row: Record<string, any>): DeliberationView {
  const usages = Object.values(row.usage_by_agent as Record<string, Usage>);
  const totals = row.totals ?? {
    inputTokens: usages.reduce((sum, u) => sum + u.inputTokens, 0),
    outputTokens: usages.reduce((sum, u) => sum + u.outputTokens, 0),
    costUsd: Math.round(usages.reduce((sum, u) => sum + u.costUsd, 0) * 1e6) / 1e6,
    webSearchRequests: usages.reduce((sum, u) => sum + u.webSearchRequests, 0),
  };
  const opinions = row.agent_opinions as Partial<Record<string, AgentOpinion>>;
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
    modelVersions: row.model_versions ?? (usages.length ? { specialists: [...new Set(usages.map((u) => u.model))].join(', ') } : {}),
    error: row.error,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** The report's latest deliberation in the organization (a rerun is newer), or null. */
export async function latestDeliberation(db: Knex, organizationId: string, reportId: string): Promise<DeliberationView | null> {
  const row = await db('committee_deliberations').where({ organization_id: organizationId, report_id: reportId }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).first();
  return row ? viewOf(row) : null;
}

/** Deliberations still RUNNING whose last event is older than `before`: a process died under them. */
export async function stalledDeliberationIds(db: Knex, before: Date, limit = 100): Promise<string[]> {
  const rows = await db('committee_deliberations').where({ status: 'RUNNING' }).andWhere('updated_at', '<', before).orderBy('updated_at').limit(limit).select('id');
  return rows.map((r) => r.id as string);
}
