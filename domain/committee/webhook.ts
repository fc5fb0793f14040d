import type { DeliberationFailed, DeliberationFinished } from './events.ts';
import { deliberationProvenance } from './provenance.ts';

type EventData = Record<string, unknown>;

/**
 * COMMITTEE_FINISHED (committee.finished): the committee concluded or failed. The payload carries
 * the decision and the synthesis (spec, Events) and reportCreatedAt, which the legacy rule
 * "only reports created after the subscription" reads. Added to the spec's fields, so that a
 * sandbox deliberation never passes for a real one: `provenance` (the chair's model, sandbox when
 * a model was the offline one or the report held sandbox data; a failed deliberation names no
 * model) as the deliberation API shows it, and `sandboxData: true` when the report held sandbox
 * data, as on the report's webhooks.
 */
function committeeFinishedData(raw: EventData): EventData {
  const d = raw as unknown as (DeliberationFinished | DeliberationFailed)['data'];
  const done = 'synthesis' in d;
  return {
    deliberationId: d.deliberationId,
    reportId: d.reportId,
    document: d.document,
    externalId: d.externalId,
    reportCreatedAt: d.reportCreatedAt,
    trigger: d.trigger,
    status: done ? 'DONE' : 'ERROR',
    decision: done ? d.finalRecommendation : null,
    synthesis: done ? d.synthesis : null,
    confidence: done ? d.synthesis.confidence : null,
    error: done ? null : d.error,
    provenance: deliberationProvenance(done ? d.modelVersions : {}, d.sandboxData === true),
    ...(d.sandboxData ? { sandboxData: true } : {}),
  };
}

export const COMMITTEE_WEBHOOK_ROUTES = {
  DeliberationFinished: { publicName: 'committee.finished', data: committeeFinishedData },
  DeliberationFailed: { publicName: 'committee.finished', data: committeeFinishedData },
};
