import type { Knex } from 'knex';
import { DELIBERATION_EVENT_TYPES, type DeliberationEvent } from '../../domain/committee/events.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { Projection } from '../../platform/projections/projection.ts';

export const COMMITTEE_PROJECTION = 'committee';

/**
 * Folds are idempotent (an opinion is set by agent, a finish overwrites): a parked event retried
 * after later ones leaves the row as an in-order replay would.
 */
async function apply(event: DeliberationEvent, position: RecordedEvent['position'], trx: Knex.Transaction): Promise<void> {
  const row = () => trx('committee_deliberations').where({ id: event.data.deliberationId });
  switch (event.type) {
    case 'DeliberationStarted': {
      const d = event.data;
      await trx('committee_deliberations')
        .insert({
          id: d.deliberationId,
          organization_id: d.organizationId,
          report_id: d.reportId,
          policy_id: d.policyId,
          policy_version: d.policyVersion,
          trigger: d.trigger,
          status: 'RUNNING',
          prompt_version: d.promptVersion,
          custom_prompts: d.customPrompts,
          prompt_versions_by_agent: JSON.stringify(d.promptVersionsByAgent),
          agent_opinions: '{}',
          usage_by_agent: '{}',
          started_commit: String(position.commit),
          started_prepare: String(position.prepare),
          created_at: d.startedAt,
          updated_at: d.startedAt,
        })
        .onConflict('id')
        .ignore();
      return;
    }
    case 'AgentOpinionRecorded': {
      const { opinion, usage, webSearchRequests, recordedAt } = event.data;
      const path = `{${opinion.agent}}`;
      await row().update({
        agent_opinions: trx.raw('jsonb_set(agent_opinions, ?, ?::jsonb)', [path, JSON.stringify(opinion)]),
        usage_by_agent: trx.raw('jsonb_set(usage_by_agent, ?, ?::jsonb)', [path, JSON.stringify({ ...usage, webSearchRequests })]),
        updated_at: trx.raw('greatest(updated_at, ?::timestamptz)', [recordedAt]),
      });
      return;
    }
    case 'DeliberationFinished': {
      const d = event.data;
      await row().update({
        status: 'DONE',
        synthesis: JSON.stringify(d.synthesis),
        final_recommendation: d.finalRecommendation,
        confidence: d.synthesis.confidence,
        totals: JSON.stringify(d.totals),
        model_versions: JSON.stringify(d.modelVersions),
        duration_ms: d.durationMs,
        updated_at: d.finishedAt,
      });
      return;
    }
    case 'DeliberationFailed':
      await row().update({ status: 'ERROR', error: event.data.error, duration_ms: event.data.durationMs, updated_at: event.data.failedAt });
  }
}

/** Deliberations of the committee, one row each. */
export const committeeProjection: Projection = {
  name: COMMITTEE_PROJECTION,
  eventTypes: DELIBERATION_EVENT_TYPES,
  tables: ['committee_deliberations'],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
    for (const event of events) await apply({ type: event.type, data: event.data } as unknown as DeliberationEvent, event.position, trx);
  },
};
