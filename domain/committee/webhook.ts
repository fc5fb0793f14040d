import type { DeliberationFailed, DeliberationFinished } from './events.ts';

type EventData = Record<string, unknown>;

/**
 * COMMITTEE_FINISHED (committee.finished): the committee concluded or failed. The payload carries
 * the decision and the synthesis (spec, Events) and reportCreatedAt, which the legacy rule
 * "only reports created after the subscription" reads.
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
  };
}

export const COMMITTEE_WEBHOOK_ROUTES = {
  DeliberationFinished: { publicName: 'committee.finished', data: committeeFinishedData },
  DeliberationFailed: { publicName: 'committee.finished', data: committeeFinishedData },
};
