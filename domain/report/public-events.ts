/**
 * The report events other modules react to (webhooks, later the committee and proposals), and
 * the facts each carries. Stored type names never change: the legacy webhook types and their
 * public names are aliases over them (spec, Versioning 5).
 */
export const ReportEventTypes = {
  requested: 'ReportRequested',
  sectionUpdated: 'ReportSectionUpdated',
  sourcesFinished: 'ReportSourcesFinished',
  decided: 'ReportDecided',
  creditPolicyEvaluated: 'CreditPolicyEvaluated',
  exported: 'ReportExported',
  exportFailed: 'ReportExportFailed',
} as const;

/** Present in the data of every report event, so a subscriber needs no lookup. */
export interface ReportFacts {
  reportId: string;
  organizationId: string;
  /** When the report was requested: legacy REPORT, REPORT_FINISHED and COMMITTEE_FINISHED go only for reports created after the subscription. */
  reportCreatedAt: string;
  document: string;
  /** 'cpf' or 'cnpj' */
  type: 'cpf' | 'cnpj';
  /** Report status value (PENDING, PROCESSING, APPROVED, DENIED, MANUAL_ANALYSIS, ...). */
  status: string;
  policyStatus: string;
  /** Policy score when evaluated, else null. */
  score: number | null;
  externalId: string | null;
  policyId: string;
  policyVersion: number;
  /**
   * The report holds a sandbox result (a section made up by a sandbox source): on every event from
   * the first such section on, so each webhook says so (named apart from ReportDecided's own `sandbox`, the offline chair's). Absent: no sandbox result.
   */
  sandboxData?: true;
}
