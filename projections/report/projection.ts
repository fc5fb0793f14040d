import type { Knex } from 'knex';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { REPORT_EVENT_TYPES, type ReportEvent } from '../../domain/report/events.ts';
import type { Projection } from '../../platform/projections/projection.ts';
import { ERASED, PERSONAL_DATA_ERASED, SUBJECTS_METADATA, type PersonalDataErased } from '../../platform/personal-data/index.ts';
import { decisionRow, erasedReportRow, evolveReportRow, newReportRow, newSectionRows, sectionUpdate, type DecisionRow, type ReportRow, type SectionRow } from './view.ts';
import { eraseSectionOpinions, writeSectionOpinions } from './opinions.ts';

export const REPORT_PROJECTION = 'report';
export const REPORT_TABLES = ['report_reports', 'report_sections', 'report_decisions'] as const;

const REPORT_JSON = ['steps', 'integration_types', 'exports', 'product'] as const;
const DECISION_JSON = ['provenance'] as const;
const REPORT_TIMES = ['finalized_at', 'created_at', 'updated_at'] as const;
const SECTION_JSON = ['details', 'selected_integrations', 'errors', 'provenance'] as const;

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : (value as string | null));

/** jsonb columns are written as JSON text: pg would send a JS array as a PostgreSQL array. */
function toDb<T extends object>(row: T, jsonColumns: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(row as Record<string, unknown>) };
  for (const column of jsonColumns) if (column in out) out[column] = out[column] === null ? null : JSON.stringify(out[column]);
  return out;
}

export function reportRowFromDb(row: Record<string, unknown>): ReportRow {
  const out = { ...row } as Record<string, unknown>;
  for (const column of REPORT_TIMES) out[column] = iso(out[column]);
  return out as unknown as ReportRow;
}

/** PostgreSQL takes at most 65535 parameters per statement: write wide batches in slices. */
async function inSlices<T>(rows: readonly T[], write: (slice: T[]) => Promise<unknown>, size = 1000): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await write(rows.slice(i, i + size));
}

async function loadReports(trx: Knex.Transaction, ids: string[]): Promise<Map<string, ReportRow>> {
  if (!ids.length) return new Map();
  const rows: Record<string, unknown>[] = await trx('report_reports').whereIn('id', ids).forUpdate();
  return new Map(rows.map((row) => [row.id as string, reportRowFromDb(row)]));
}

/** Rows not in the batch: what a rebuild would show once the subject's key is gone. */
async function eraseSubjects(trx: Knex.Transaction, subjects: string[]): Promise<void> {
  const erased = (column: string) => trx.raw(`case when ?? is null then null else ? end`, [column, ERASED]);
  const reportIds = trx('report_reports').whereIn('subject_id', subjects).select('id');
  await trx('report_reports')
    .whereIn('subject_id', subjects)
    .update({ document: ERASED, commentary: erased('commentary'), analyst_name: erased('analyst_name') });
  await trx('report_sections').whereIn('report_id', reportIds).whereNotNull('details').update({ details: '{}' });
  await eraseSectionOpinions(trx, reportIds);
  await trx('report_decisions')
    .whereIn('report_id', reportIds)
    .update({ commentary: erased('commentary'), analyst_name: erased('analyst_name') });
}

/**
 * Reports, their sections and their decisions. A batch is folded in memory and written with one
 * statement per table, so the projection keeps up with hundreds of reports a second.
 */
export const reportProjection: Projection = {
  name: REPORT_PROJECTION,
  eventTypes: [...REPORT_EVENT_TYPES, PERSONAL_DATA_ERASED],
  tables: REPORT_TABLES,
  async handle(recorded: readonly RecordedEvent[], trx: Knex.Transaction) {
    const erasures = recorded.filter((e) => e.type === PERSONAL_DATA_ERASED);
    const events = recorded.map((e) => ({ id: e.id, subjects: e.metadata[SUBJECTS_METADATA] as string[] | undefined, event: { type: e.type, data: e.data } as unknown as ReportEvent }));
    const createdHere = new Set(events.filter((e) => e.event.type === 'ReportRequested').map((e) => e.event.data.reportId));
    const reportIds = events.flatMap((e) => (e.event.data.reportId ? [e.event.data.reportId] : []));
    const reports = await loadReports(
      trx,
      [...new Set(reportIds)].filter((id) => !createdHere.has(id)),
    );
    const newSections = new Map<string, SectionRow>();
    const updatedSections = new Map<string, ReturnType<typeof sectionUpdate> & Pick<SectionRow, 'report_id' | 'organization_id' | 'type'>>();
    const decisions: DecisionRow[] = [];

    for (const { id, subjects, event } of events) {
      if ((event.type as string) === PERSONAL_DATA_ERASED) {
        const subject = (event.data as unknown as PersonalDataErased).subjectId;
        for (const [reportId, row] of reports) if (row.subject_id === subject) reports.set(reportId, erasedReportRow(row));
        continue;
      }
      const reportId = event.data.reportId;
      if (event.type === 'ReportRequested') {
        reports.set(reportId, newReportRow(event, subjects?.[0] ?? null));
        for (const section of newSectionRows(event)) newSections.set(section.id, section);
        continue;
      }
      const row = reports.get(reportId);
      if (!row) continue; // its request is not in the store: nothing to attach it to
      const evolved = evolveReportRow(row, event);
      reports.set(reportId, evolved);
      if (event.type === 'ReportSectionUpdated') {
        const { organizationId, sectionType } = event.data;
        const pending = newSections.get(event.data.sectionId);
        const change = sectionUpdate(event, evolved.sandbox);
        // An answer that raced the erasure of its subject is not written back.
        if (row.document === ERASED && change.details !== null) change.details = {};
        if (pending) Object.assign(pending, change);
        else updatedSections.set(change.id, { ...change, report_id: reportId, organization_id: organizationId, type: sectionType });
      }
      if (event.type === 'ReportDecided') decisions.push(decisionRow(id, event, evolved.sandbox));
    }

    const reportRows = [...reports.values()].map((r) => toDb(r, REPORT_JSON));
    await inSlices(reportRows, (slice) => trx('report_reports').insert(slice).onConflict('id').merge());
    const sectionRows = [...newSections.values()].map((s) => toDb(s, SECTION_JSON));
    await inSlices(sectionRows, (slice) => trx('report_sections').insert(slice).onConflict('id').merge());
    // Only the columns an update changes: position and created_at stay as the request wrote them.
    const updateRows = [...updatedSections.values()].map((s) => toDb({ ...s, position: 0, created_at: s.updated_at }, SECTION_JSON));
    await inSlices(updateRows, (slice) =>
      trx('report_sections').insert(slice).onConflict('id').merge(['status', 'details', 'selected_integrations', 'errors', 'integration_count', 'provenance', 'updated_at', 'finished_at']),
    );
    const decisionRows = decisions.map((d) => toDb(d, DECISION_JSON));
    await inSlices(decisionRows, (slice) => trx('report_decisions').insert(slice).onConflict('event_id').ignore());
    await writeSectionOpinions(
      trx,
      events.map((e) => e.event),
    );
    if (erasures.length)
      await eraseSubjects(
        trx,
        erasures.map((e) => (e.data as unknown as PersonalDataErased).subjectId),
      );
  },
};
