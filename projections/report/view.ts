import type { ExportFormat, ReportEvent, ReportProduct } from '../../domain/report/events.ts';
import { SECTION_TYPES, isSourceSectionType, type SectionType } from '../../domain/report/sections.ts';
import { ERASED } from '../../platform/personal-data/index.ts';
import type { OpinionRecord } from './opinions.ts';
import { provenanceOfIntegrations, type ReadProvenance } from '../../domain/shared/provenance.ts';
import { isSandboxSection } from '../../domain/report/state.ts';
import { POLICY_ENGINE_INTEGRATION } from '../../domain/report/finalize.ts';
import { ANALYST_PROVIDER } from '../../domain/report/decided.ts';

/**
 * The report read model as plain values, and how each event changes it. Pure, so the projection
 * is a load / fold / save over a batch, and a rebuild reproduces the rows exactly (every value,
 * timestamps included, comes from the events).
 */

export interface Step {
  type: SectionType;
  title: string;
  status: 'PENDING' | 'DONE' | 'ERROR' | 'SKIPPED';
  finishedAt: string | null;
}

export interface ExportInfo {
  blobId: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  exportedAt: string;
}

export interface Exports {
  pdf: ExportInfo | null;
  xlsx: ExportInfo | null;
  failures: Partial<Record<ExportFormat, { reason: string; failedAt: string }>>;
}

export interface ReportRow {
  id: string;
  organization_id: string;
  user_id: string;
  /** Null for reports requested before personal data was sealed. */
  subject_id: string | null;
  document: string;
  document_type: string;
  external_id: string | null;
  year_month_day: number;
  policy_id: string;
  policy_version: number;
  policy_name: string;
  status: string;
  policy_status: string;
  score: number | null;
  commentary: string | null;
  analyst_id: string | null;
  previous_analyst_id: string | null;
  analyst_name: string | null;
  policy_error_status_applied: string | null;
  ran_without_scr_reason: string | null;
  steps: Step[];
  is_finalized: boolean;
  finalized_at: string | null;
  integration_types: string[];
  verified: boolean;
  exports: Exports;
  /** The product of the proposal the report belongs to (ReportProduct), null for a report of no proposal. */
  product: ReportProduct | null;
  /** Opinions were asked for its sections (projections/report/opinions.ts). */
  parecer_enabled: boolean;
  /** Its current decision is the committee's on the offline model (ReportDecided.sandbox). */
  sandbox_decision: boolean;
  /** It holds a sandbox result: a section a sandbox source made up (ReportFacts.sandboxData). */
  sandbox: boolean;
  created_at: string;
  updated_at: string;
}

export interface SectionRow {
  id: string;
  report_id: string;
  organization_id: string;
  position: number;
  type: string;
  status: 'PENDING' | 'DONE' | 'ERROR';
  details: Record<string, unknown> | null;
  selected_integrations: string[];
  errors: unknown[];
  integration_count: number;
  /** Which provider produced it and whether it is a sandbox result; null while PENDING. */
  provenance: ReadProvenance | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  /** The section's AI opinion (projections/report/opinions.ts). */
  parecer_status: 'PENDING' | 'DONE' | 'ERROR' | null;
  parecer_score: number | null;
  parecer_risk_level: string | null;
  parecer: OpinionRecord | null;
}

export interface DecisionRow {
  event_id: string;
  report_id: string;
  organization_id: string;
  kind: string;
  decided_by: string;
  decision: string;
  previous_status: string;
  score: number | null;
  analyst_id: string | null;
  analyst_name: string | null;
  previous_analyst_id: string | null;
  commentary: string | null;
  decided_at: string;
  /** The committee decided on the offline model. */
  sandbox: boolean;
  provenance: ReadProvenance;
}

/** The instant an event happened, from its own data. */
export function timeOf(event: ReportEvent): string {
  switch (event.type) {
    case 'ReportRequested':
      return event.data.reportCreatedAt;
    case 'ReportProcessingStarted':
      return event.data.startedAt;
    case 'ReportSectionUpdated':
      return event.data.updatedAt;
    case 'ReportSourcesFinished':
      return event.data.finishedAt;
    case 'CreditPolicyEvaluated':
      return event.data.evaluatedAt;
    case 'ReportDecided':
      return event.data.decidedAt;
    case 'ReportExported':
      return event.data.exportedAt;
    case 'ReportExportFailed':
    case 'ReportProcessingFailed':
      return event.data.failedAt;
    case 'FinancialStatementsSubmitted':
      return event.data.submittedAt;
    case 'FinancialStatementsExtractionAttempted':
      return event.data.startedAt;
    case 'FinancialStatementsExtracted':
      return event.data.extractedAt;
    case 'FinancialStatementsExtractionFailed':
      return event.data.failedAt;
    case 'SectionOpinionsRequested':
      return event.data.requestedAt;
    case 'SectionOpinionRecorded':
      return event.data.recordedAt;
  }
}

const step = (type: SectionType, status: Step['status'] = 'PENDING'): Step => ({ type, title: SECTION_TYPES[type].title, status, finishedAt: null });

export function newReportRow(event: Extract<ReportEvent, { type: 'ReportRequested' }>, subjectId: string | null): ReportRow {
  const d = event.data;
  const queried = d.sections.map((s) => s.type).filter(isSourceSectionType);
  const skipped = d.skippedSections;
  return {
    id: d.reportId,
    organization_id: d.organizationId,
    user_id: d.userId,
    subject_id: subjectId,
    document: d.document,
    document_type: d.type,
    external_id: d.externalId,
    year_month_day: d.yearMonthDay,
    policy_id: d.policyId,
    policy_version: d.policyVersion,
    policy_name: d.policyName,
    status: d.status,
    policy_status: d.policyStatus,
    score: d.score,
    commentary: null,
    analyst_id: null,
    previous_analyst_id: null,
    analyst_name: null,
    policy_error_status_applied: null,
    ran_without_scr_reason: d.ranWithoutSCRReason,
    steps: [...queried.map((type) => step(type)), ...skipped.map((type) => step(type, 'SKIPPED')), step('CREDIT_POLICY')],
    is_finalized: false,
    finalized_at: null,
    integration_types: [],
    verified: false,
    exports: { pdf: null, xlsx: null, failures: {} },
    product: d.product ?? null,
    parecer_enabled: false,
    sandbox_decision: false,
    sandbox: d.sandboxData === true,
    created_at: d.reportCreatedAt,
    updated_at: d.reportCreatedAt,
  };
}

const NO_OPINION = { parecer_status: null, parecer_score: null, parecer_risk_level: null, parecer: null } as const;

export function newSectionRows(event: Extract<ReportEvent, { type: 'ReportRequested' }>): SectionRow[] {
  const d = event.data;
  return d.sections.map((section, position) => ({
    id: section.id,
    report_id: d.reportId,
    organization_id: d.organizationId,
    position,
    type: section.type,
    status: 'PENDING',
    details: null,
    selected_integrations: [],
    errors: [],
    integration_count: 0,
    provenance: null,
    created_at: d.reportCreatedAt,
    updated_at: d.reportCreatedAt,
    finished_at: null,
    ...NO_OPINION,
  }));
}

/**
 * A section's provenance: as its event recorded it; recorded before provenance, its integrations
 * say the sandbox, and a section computed on a report holding sandbox data is one too.
 */
function sectionProvenance(d: Extract<ReportEvent, { type: 'ReportSectionUpdated' }>['data'], reportSandbox: boolean): ReadProvenance {
  if (d.provenance) return d.provenance;
  const read = provenanceOfIntegrations(d.selectedIntegrations);
  return reportSandbox ? { ...read, sandbox: true } : read;
}

/** The columns a section update changes (the rest was written when the report was requested); `reportSandbox`: the report row after the event. */
export function sectionUpdate(event: Extract<ReportEvent, { type: 'ReportSectionUpdated' }>, reportSandbox: boolean) {
  const d = event.data;
  return {
    provenance: sectionProvenance(d, reportSandbox),
    id: d.sectionId,
    status: d.outcome,
    details: d.details,
    selected_integrations: d.selectedIntegrations,
    errors: d.errors,
    integration_count: d.integrationCount,
    updated_at: d.updatedAt,
    finished_at: d.updatedAt,
  };
}

/** Fold one event (other than the first) into the report row. */
export function evolveReportRow(row: ReportRow, event: ReportEvent): ReportRow {
  const d = event.data;
  const next: ReportRow = { ...row, status: d.status, policy_status: d.policyStatus, score: d.score, updated_at: timeOf(event) };
  switch (event.type) {
    case 'ReportSectionUpdated': {
      const { sectionType, outcome, updatedAt, selectedIntegrations } = event.data;
      next.steps = row.steps.map((s) => (s.type === sectionType ? { ...s, status: outcome, finishedAt: updatedAt } : s));
      next.integration_types = [...new Set([...row.integration_types, ...selectedIntegrations])].sort();
      next.sandbox = row.sandbox || isSandboxSection(event.data);
      // Verified: the official registry (BASIC_INFORMATION) knows the document.
      if (sectionType === 'BASIC_INFORMATION') next.verified = outcome === 'DONE';
      return next;
    }
    case 'ReportSourcesFinished':
      return { ...next, is_finalized: true, finalized_at: event.data.finishedAt };
    case 'CreditPolicyEvaluated':
      return { ...next, policy_error_status_applied: event.data.policyErrorStatusApplied };
    case 'ReportDecided':
      next.sandbox_decision = event.data.sandbox === true;
      if (event.data.decidedBy !== 'ANALYST') return next;
      return {
        ...next,
        commentary: event.data.commentary,
        analyst_id: event.data.analystId,
        analyst_name: event.data.analystName,
        previous_analyst_id: event.data.previousAnalystId,
      };
    case 'ReportExported': {
      const { format, blobId, fileName, contentType, sizeBytes, exportedAt } = event.data;
      const { [format]: _cleared, ...failures } = row.exports.failures;
      return { ...next, exports: { ...row.exports, [format]: { blobId, fileName, contentType, sizeBytes, exportedAt }, failures } };
    }
    case 'SectionOpinionsRequested':
      return { ...next, parecer_enabled: true };
    case 'ReportExportFailed': {
      const { format, reason, failedAt } = event.data;
      return { ...next, exports: { ...row.exports, failures: { ...row.exports.failures, [format]: { reason, failedAt } } } };
    }
    default:
      return next;
  }
}

/** A report whose subject was erased reads as a rebuild would show it: every personal field erased. */
export function erasedReportRow(row: ReportRow): ReportRow {
  const erased = (value: string | null) => (value === null ? null : ERASED);
  return { ...row, document: ERASED, commentary: erased(row.commentary), analyst_name: erased(row.analyst_name) };
}

/** Who a decision recorded before provenance came from, where its event says it. */
const LEGACY_DECISION_PROVIDERS: Record<string, string> = { POLICY: POLICY_ENGINE_INTEGRATION, ANALYST: ANALYST_PROVIDER };

/**
 * One row of the decision history; `reportSandbox`: the report holds sandbox data. A decision
 * recorded before provenance is a sandbox one when it was the offline model's or taken on sandbox
 * data; otherwise whether it was is unknown.
 */
export function decisionRow(eventId: string, event: Extract<ReportEvent, { type: 'ReportDecided' }>, reportSandbox: boolean): DecisionRow {
  const d = event.data;
  const provenance = d.provenance ?? { provider: LEGACY_DECISION_PROVIDERS[d.decidedBy] ?? null, sandbox: d.sandbox || reportSandbox ? true : null };
  return {
    event_id: eventId,
    report_id: d.reportId,
    organization_id: d.organizationId,
    kind: d.kind,
    decided_by: d.decidedBy,
    decision: d.decision,
    previous_status: d.previousStatus,
    score: d.score,
    analyst_id: d.analystId,
    analyst_name: d.analystName,
    previous_analyst_id: d.previousAnalystId,
    commentary: d.commentary,
    decided_at: d.decidedAt,
    sandbox: d.sandbox === true,
    provenance,
  };
}
