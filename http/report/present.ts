import type { Config } from '../../config/index.ts';
import { freshDownloadUrl } from '../../application/report/export/signed-url.ts';
import type { ExportableReport } from '../../application/report/export/exportable.ts';
import { SECTION_TYPES, type SectionType } from '../../domain/report/sections.ts';
import { modelProvenance } from '../../domain/shared/provenance.ts';
import { statusObject } from '../../domain/report/statuses.ts';
import type { ReportWithSections } from '../../projections/report/queries.ts';
import type { DecisionRow, ReportRow, SectionRow } from '../../projections/report/view.ts';
import type { DeliberationView } from '../../projections/committee/queries.ts';
import { presentReportCommittee } from '../committee/present.ts';

/** Read rows in the contract's shapes (spec, Report and Section). */

export function sectionType(type: string) {
  const known = SECTION_TYPES[type as SectionType];
  return { id: known?.id ?? 0, title: known?.title ?? type, value: type };
}

export function presentSection(row: SectionRow, withDetails = true) {
  return {
    id: row.id,
    type: sectionType(row.type),
    parecerStatus: row.parecer_status,
    parecerScore: row.parecer_score,
    parecerRiskLevel: row.parecer_risk_level,
    ...(withDetails ? { sectionDetails: row.details } : {}),
    selectedIntegrations: row.selected_integrations,
    errors: row.errors,
    integrationCount: row.integration_count,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    provenance: row.provenance,
    parecerProvenance: row.parecer ? modelProvenance(row.parecer.call?.model ?? null, row.provenance?.sandbox ?? null) : null,
  };
}

type LinkConfig = Config;

/** Export links are signed at read time, so the link a reader gets is always valid for the full TTL. */
function exportLink(config: LinkConfig, blobId: string | undefined, now: Date): string | null {
  return blobId ? freshDownloadUrl(config, blobId, now).url : null;
}

export interface ReportPresentation {
  details: boolean;
  /** Only sections of these types (tabType); all when absent. */
  types?: ReadonlySet<string>;
  config: LinkConfig;
  now: Date;
  /** The report's latest committee deliberation (null: never convened). */
  committee: DeliberationView | null;
}

export function presentReport({ report: r, sections }: ReportWithSections, options: ReportPresentation) {
  const shown = options.types ? sections.filter((s) => options.types!.has(s.type)) : sections;
  return {
    id: r.id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    document: r.document,
    type: r.document_type,
    yearMonthDay: r.year_month_day,
    policyId: r.policy_id,
    policyVersion: r.policy_version,
    policyName: r.policy_name,
    organizationId: r.organization_id,
    userId: r.user_id,
    commentary: r.commentary,
    previousAnalystId: r.previous_analyst_id,
    analystId: r.analyst_id,
    analystName: r.analyst_name,
    policyErrorStatusApplied: r.policy_error_status_applied,
    policyStatus: r.policy_status,
    score: r.score,
    status: statusObject(r.status),
    reportProgress: { isFinalized: r.is_finalized, finalizedAt: r.finalized_at, steps: r.steps },
    sandboxDecision: r.sandbox_decision,
    ranWithoutSCRReason: r.ran_without_scr_reason,
    sections: shown.map((s) => presentSection(s, options.details)),
    product: r.product,
    verified: r.verified,
    exportUrl: exportLink(options.config, r.exports.pdf?.blobId, options.now),
    exportExcelUrl: exportLink(options.config, r.exports.xlsx?.blobId, options.now),
    exportErrors: r.exports.failures,
    parecerEnabled: r.parecer_enabled,
    ...presentReportCommittee(options.committee),
    integrationTypes: r.integration_types,
    externalId: r.external_id,
    sandbox: r.sandbox,
  };
}

/** GET /report/section/{id}: the section, whether it is finished, and what it belongs to. */
export function presentSectionDetail(report: ReportRow, section: SectionRow) {
  return {
    ...presentSection(section),
    reportId: report.id,
    isFinalized: section.status !== 'PENDING',
    metadata: {
      document: report.document,
      type: report.document_type,
      reportStatus: statusObject(report.status),
      policyStatus: report.policy_status,
      reportIsFinalized: report.is_finalized,
      policyId: report.policy_id,
      policyVersion: report.policy_version,
      externalId: report.external_id,
    },
  };
}

export function presentDecision(row: DecisionRow) {
  return {
    kind: row.kind,
    decidedBy: row.decided_by,
    decision: row.decision,
    status: statusObject(row.decision),
    previousStatus: row.previous_status,
    score: row.score,
    analystId: row.analyst_id,
    analystName: row.analyst_name,
    previousAnalystId: row.previous_analyst_id,
    commentary: row.commentary,
    decidedAt: row.decided_at,
    sandbox: row.sandbox,
    provenance: row.provenance,
  };
}

export function exportableOf({ report: r, sections }: ReportWithSections): ExportableReport {
  return {
    id: r.id,
    document: r.document,
    documentType: r.document_type as ExportableReport['documentType'],
    externalId: r.external_id,
    status: statusObject(r.status),
    policyStatus: r.policy_status,
    score: r.score,
    policyName: r.policy_name,
    policyVersion: r.policy_version,
    createdAt: r.created_at,
    finalizedAt: r.finalized_at,
    analystName: r.analyst_name,
    commentary: r.commentary,
    ranWithoutSCRReason: r.ran_without_scr_reason,
    policyErrorStatusApplied: r.policy_error_status_applied,
    sandbox: r.sandbox,
    sections: sections.map((s) => ({
      type: s.type,
      title: sectionType(s.type).title,
      status: s.status,
      details: s.details,
      errors: (s.errors as Array<{ code: string; message: string }>).map(({ code, message }) => ({ code, message })),
    })),
  };
}
