import type { ReportEvent } from './events.ts';
import { provenanceOfIntegrations, type Provenance } from '../shared/provenance.ts';
import { evolveFinancial } from './financial-decider.ts';
import { evolveExtraction } from './extraction-decider.ts';
import type { ReportFacts } from './public-events.ts';
import type { Decision } from './statuses.ts';
import { evolveOpinions, initialOpinionState, type OpinionState } from './opinion-decider.ts';
import { isSourceSectionType, type SectionResult, type SectionType, type SourceSectionType } from './sections.ts';

/** What the report decider needs to know about one report stream. */
export interface ReportState {
  facts: ReportFacts | null;
  inputs: Record<string, unknown>;
  sectionIds: Partial<Record<SectionType, string>>;
  /** Sources the report queries, in order. */
  sourceSections: SourceSectionType[];
  /** Sources that have answered (data or error). */
  results: Partial<Record<SourceSectionType, SectionResult>>;
  skipped: SourceSectionType[];
  sourcesFinished: boolean;
  /** Processing gave up (ReportProcessingFailed): nothing more is queried. */
  processingFailed: boolean;
  decided: boolean;
  /**
   * The credit policy's own decision, apart from policyStatus, which every later decision (an
   * analyst's, the committee's) overwrites: a backtest compares policies, so it compares with this.
   */
  policyDecision: Decision | null;
  manualAnalysis: { analystId: string; analystName: string | null } | null;
  /** Financial statement keys submitted so far -> the batch that first carried each (absent: none). */
  financialKeys?: Record<string, string>;
  /** Submitted batches with an extraction outcome, and the BALANCE_SHEET section a first extraction created. */
  financialBatches?: Record<string, 'DONE' | 'ERROR'>;
  financialSectionId?: string;
  /** Extraction tries begun per batch still without an outcome. */
  financialAttempts?: Record<string, number>;
  opinions: OpinionState;
}

export function initialReportState(): ReportState {
  return {
    facts: null,
    inputs: {},
    sectionIds: {},
    sourceSections: [],
    results: {},
    skipped: [],
    sourcesFinished: false,
    processingFailed: false,
    decided: false,
    policyDecision: null,
    manualAnalysis: null,
    opinions: initialOpinionState(),
  };
}

/** Sources still to answer. */
export function pendingSources(state: ReportState): SourceSectionType[] {
  return state.sourceSections.filter((type) => !state.results[type]);
}

export function factsOf(data: ReportFacts): ReportFacts {
  return {
    reportId: data.reportId,
    organizationId: data.organizationId,
    reportCreatedAt: data.reportCreatedAt,
    document: data.document,
    type: data.type,
    status: data.status,
    policyStatus: data.policyStatus,
    score: data.score,
    externalId: data.externalId,
    policyId: data.policyId,
    policyVersion: data.policyVersion,
    ...(data.sandboxData ? { sandboxData: true } : {}),
  };
}

/** A section a sandbox source made up (its provenance says so, or, recorded before provenance, its integrations). */
export function isSandboxSection(data: { selectedIntegrations: string[]; provenance?: Provenance }): boolean {
  return data.provenance ? data.provenance.sandbox : provenanceOfIntegrations(data.selectedIntegrations).sandbox === true;
}

export function evolveReport(state: ReportState, event: ReportEvent): ReportState {
  // Once a sandbox result is in, the report stays marked, also for events recorded before the mark.
  const sandbox = state.facts?.sandboxData || (event.type === 'ReportSectionUpdated' && isSandboxSection(event.data));
  const facts = sandbox ? { ...factsOf(event.data), sandboxData: true as const } : factsOf(event.data);
  switch (event.type) {
    case 'ReportRequested': {
      const sectionIds: Partial<Record<SectionType, string>> = {};
      for (const section of event.data.sections) sectionIds[section.type] = section.id;
      const sourceSections = event.data.sections.map((s) => s.type).filter(isSourceSectionType);
      return { ...state, facts, inputs: event.data.inputs, sectionIds, sourceSections, skipped: event.data.skippedSections };
    }
    case 'ReportSectionUpdated': {
      const { sectionType } = event.data;
      if (!isSourceSectionType(sectionType)) return { ...state, facts };
      const result: SectionResult = {
        sectionType,
        outcome: event.data.outcome,
        details: event.data.details,
        selectedIntegrations: event.data.selectedIntegrations,
        errors: event.data.errors,
        integrationCount: event.data.integrationCount,
        ...(event.data.provenance ? { provenance: event.data.provenance } : {}),
      };
      return { ...state, facts, results: { ...state.results, [sectionType]: result } };
    }
    case 'ReportSourcesFinished':
      return { ...state, facts, sourcesFinished: true };
    case 'ReportProcessingFailed':
      return { ...state, facts, processingFailed: true };
    case 'CreditPolicyEvaluated':
      return { ...state, facts, policyDecision: event.data.decision };
    case 'ReportDecided':
      return {
        ...state,
        facts,
        decided: true,
        manualAnalysis: event.data.decidedBy === 'ANALYST' ? { analystId: event.data.analystId!, analystName: event.data.analystName } : state.manualAnalysis,
      };
    case 'FinancialStatementsSubmitted':
      return evolveFinancial({ ...state, facts }, event);
    case 'FinancialStatementsExtractionAttempted':
    case 'FinancialStatementsExtracted':
    case 'FinancialStatementsExtractionFailed':
      return evolveExtraction({ ...state, facts }, event);
    case 'SectionOpinionsRequested':
    case 'SectionOpinionRecorded':
      return { ...state, facts, opinions: evolveOpinions(state.opinions, event) };
    default:
      return { ...state, facts };
  }
}
