import type { Knex } from 'knex';
import { reportRowFromDb } from './projection.ts';
import type { DecisionRow, ReportRow, SectionRow } from './view.ts';

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : (value as string | null));

function sectionFromDb(row: Record<string, unknown>): SectionRow {
  return { ...row, created_at: iso(row.created_at), updated_at: iso(row.updated_at), finished_at: iso(row.finished_at) } as SectionRow;
}

export interface ReportWithSections {
  report: ReportRow;
  sections: SectionRow[];
}

/** A report of the organization with its sections in display order; another organization's is absent. */
export async function findReport(db: Knex, organizationId: string, reportId: string): Promise<ReportWithSections | null> {
  const row = await db('report_reports').where({ id: reportId, organization_id: organizationId }).first();
  if (!row) return null;
  const sections = await db('report_sections').where({ report_id: reportId }).orderBy('position');
  return { report: reportRowFromDb(row), sections: sections.map(sectionFromDb) };
}

export async function findReportRow(db: Knex, organizationId: string, reportId: string): Promise<ReportRow | null> {
  const row = await db('report_reports').where({ id: reportId, organization_id: organizationId }).first();
  return row ? reportRowFromDb(row) : null;
}

/** A section with the report it belongs to (for its finalization status and metadata). */
export async function findSection(db: Knex, organizationId: string, where: { id: string } | { reportId: string; type: string }): Promise<{ report: ReportRow; section: SectionRow } | null> {
  const query = db('report_sections').where({ organization_id: organizationId });
  if ('id' in where) query.andWhere({ id: where.id });
  else query.andWhere({ report_id: where.reportId, type: where.type });
  const section = await query.first();
  if (!section) return null;
  const report = await findReportRow(db, organizationId, section.report_id);
  return report ? { report, section: sectionFromDb(section) } : null;
}

/** The export files of every report about one person (erasure deletes them: they print the person's data). */
/** The ids of the reports of a subject (a person as one organization holds them). */
export async function reportIdsOfSubject(db: Knex, subjectId: string): Promise<string[]> {
  return (await db('report_reports').where({ subject_id: subjectId }).select('id')).map((row: { id: string }) => row.id);
}

export async function exportBlobIdsOfSubject(db: Knex, subjectId: string): Promise<string[]> {
  const rows: Array<{ exports: ReportRow['exports'] }> = await db('report_reports').where({ subject_id: subjectId }).select('exports');
  return rows.flatMap(({ exports }) => [exports.pdf?.blobId, exports.xlsx?.blobId].filter((id): id is string => !!id));
}

export async function listDecisions(db: Knex, organizationId: string, reportId: string): Promise<DecisionRow[]> {
  const rows = await db('report_decisions').where({ report_id: reportId, organization_id: organizationId }).orderBy('decided_at').orderBy('event_id');
  return rows.map((r: Record<string, unknown>) => ({ ...r, decided_at: iso(r.decided_at) }) as DecisionRow);
}

export interface ReportListFilter {
  externalId?: string;
  /** Digits only. */
  document?: string;
  statuses?: readonly string[];
  /** Created at or after. */
  from?: Date;
  /** Created before. */
  to?: Date;
}

/** The columns a list shows: the report's summary, without steps, exports or sections. */
const SUMMARY_COLUMNS = [
  'id',
  'status',
  'policy_status',
  'policy_id',
  'policy_version',
  'policy_name',
  'document',
  'document_type',
  'external_id',
  'score',
  'is_finalized',
  'finalized_at',
  'created_at',
  'updated_at',
] as const;

export type ReportSummaryRow = Pick<ReportRow, (typeof SUMMARY_COLUMNS)[number]>;

/**
 * One page of the organization's reports, newest first, and how many match. The id breaks ties
 * of created_at so that pages never overlap; the indexes of 202611251000_report_list_indexes
 * serve each filter in that order.
 */
export async function listReports(db: Knex, organizationId: string, filter: ReportListFilter, page: { offset: number; limit: number }): Promise<{ total: number; rows: ReportSummaryRow[] }> {
  const matching = () => {
    const query = db('report_reports').where({ organization_id: organizationId });
    if (filter.externalId !== undefined) query.andWhere({ external_id: filter.externalId });
    if (filter.document !== undefined) query.andWhere({ document: filter.document });
    if (filter.statuses?.length) query.whereIn('status', filter.statuses);
    if (filter.from) query.andWhere('created_at', '>=', filter.from);
    if (filter.to) query.andWhere('created_at', '<', filter.to);
    return query;
  };
  const [counted, rows] = await Promise.all([
    matching().count({ n: '*' }),
    matching()
      .select(SUMMARY_COLUMNS)
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .offset(page.offset)
      .limit(page.limit),
  ]);
  return { total: Number(counted[0]!.n), rows: rows.map((row: Record<string, unknown>) => reportRowFromDb(row) as ReportSummaryRow) };
}

/** The organization's latest finalized reports of one document type, newest first (a policy backtest's sample). */
export async function latestFinalizedReportIds(db: Knex, organizationId: string, documentType: string, limit: number): Promise<string[]> {
  return db('report_reports')
    .where({ organization_id: organizationId, document_type: documentType, is_finalized: true })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit)
    .pluck('id');
}
