import type { Knex } from 'knex';
import type { ModelCallRecord, OpinionEvent, SectionOpinion } from '../../domain/report/opinion-events.ts';
import type { ReportEvent } from '../../domain/report/events.ts';

/** What GET /report/{id}/insights shows of one section's opinion (report_sections.parecer). */
export interface OpinionRecord {
  status: 'DONE' | 'ERROR';
  opinion: SectionOpinion | null;
  error: string | null;
  call: ModelCallRecord | null;
  priceTableVersion: string;
  recordedAt: string;
}

const isOpinionEvent = (event: ReportEvent): event is OpinionEvent => event.type === 'SectionOpinionsRequested' || event.type === 'SectionOpinionRecorded';

/**
 * The opinion columns of report_sections, written after the batch's section rows exist. Few
 * rows per report (one per source section), so one statement each is enough.
 */
export async function writeSectionOpinions(trx: Knex.Transaction, events: readonly ReportEvent[]): Promise<void> {
  for (const event of events.filter(isOpinionEvent)) {
    if (event.type === 'SectionOpinionsRequested') {
      const ids = event.data.sections.map((s) => s.sectionId);
      await trx('report_sections').whereIn('id', ids).whereNull('parecer_status').update({ parecer_status: 'PENDING' });
      continue;
    }
    const { sectionId, status, opinion, error, call, priceTableVersion, recordedAt } = event.data;
    const record: OpinionRecord = { status, opinion, error, call, priceTableVersion, recordedAt };
    await trx('report_sections')
      .where({ id: sectionId })
      .update({ parecer_status: status, parecer_score: opinion?.score ?? null, parecer_risk_level: opinion?.riskLevel ?? null, parecer: JSON.stringify(record) });
  }
}
