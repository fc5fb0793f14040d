import type { PolicySnapshot } from '../credit-policy/policy.ts';
import type { Decider } from '../shared/decider.ts';
import type { TaxDocument } from '../shared/document.ts';
import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';
import type { ExportFormat, ExportedFile, ReportEvent, ReportProduct } from './events.ts';
import { ANALYST_PROVIDER, decisionProvenance, reportDecided } from './decided.ts';
import { finalizeReport } from './finalize.ts';
import { submitFinancialStatements, type SubmitFinancialStatements } from './financial-decider.ts';
import { beginFinancialExtractionAttempt, recordFinancialExtraction, type BeginFinancialExtractionAttempt, type RecordFinancialExtraction } from './extraction-decider.ts';
import { recordCommitteeDecision, type RecordCommitteeDecision } from './committee-decider.ts';
import { decideOpinion, type OpinionCommand } from './opinion-decider.ts';
import type { ReportFacts } from './public-events.ts';
import type { SectionResult, SectionType } from './sections.ts';
import { evolveReport, initialReportState, pendingSources, type ReportState } from './state.ts';

export const RAN_WITHOUT_SCR_REASON = 'A organização não tem o módulo SCR contratado: a consulta ao SCR não foi feita.';

export type ReportCommand =
  | {
      type: 'RequestReport';
      reportId: string;
      organizationId: string;
      userId: string;
      document: TaxDocument;
      externalId: string | null;
      policy: PolicySnapshot;
      /** Whether the organization contracted the central bank register (module scr). */
      scrEnabled: boolean;
      /** Fresh ObjectIds, at least one per section (policy sections + SUMMARY + CREDIT_POLICY). */
      sectionIds: string[];
      inputs: Record<string, unknown>;
      /** The product of the proposal the report is run for. */
      product?: ReportProduct | null;
      at: string;
    }
  | { type: 'StartProcessing'; at: string }
  | { type: 'FailProcessing'; attempts: number; at: string }
  | {
      type: 'RecordSectionResults';
      results: SectionResult[];
      /** The version the report was requested under (from its policy's stream): the last result applies it. */
      policy: PolicySnapshot;
      at: string;
    }
  | {
      type: 'RecordManualAnalysis';
      kind: 'MANUAL_ANALYSIS' | 'MANUAL_REANALYSIS';
      organizationId: string;
      analystId: string;
      analystName: string | null;
      approved: boolean;
      commentary: string;
      at: string;
    }
  | ({ type: 'RecordExport'; organizationId: string; userId: string; at: string } & ExportedFile)
  | { type: 'RecordExportFailure'; organizationId: string; userId: string; format: ExportFormat; reason: string; at: string }
  | SubmitFinancialStatements
  | BeginFinancialExtractionAttempt
  | RecordFinancialExtraction
  | RecordCommitteeDecision
  | OpinionCommand;

/** Commands from callers name their organization: another organization's report does not exist for them. */
function visibleTo(state: ReportState, organizationId: string | null): ReportFacts {
  if (!state.facts || (organizationId !== null && state.facts.organizationId !== organizationId)) {
    throw new DomainError('not_found', Messages.reportNotFound);
  }
  return state.facts;
}

function requestReport(command: Extract<ReportCommand, { type: 'RequestReport' }>, state: ReportState): ReportEvent[] {
  if (state.facts) throw new DomainError('conflict', Messages.reportAlreadyExists);
  const { policy, document, at } = command;
  if (policy.documentType !== document.type) throw new DomainError('unprocessable', Messages.policyOtherDocumentType);
  const sources = policy.sections.filter((type) => type !== 'SCR' || command.scrEnabled);
  const types: SectionType[] = ['SUMMARY', ...sources, 'CREDIT_POLICY'];
  if (command.sectionIds.length < types.length) throw new Error('RequestReport needs one section id per section');
  const facts: ReportFacts = {
    reportId: command.reportId,
    organizationId: command.organizationId,
    reportCreatedAt: at,
    document: document.digits,
    type: document.type,
    status: 'PENDING',
    policyStatus: 'PENDING',
    score: null,
    externalId: command.externalId,
    policyId: policy.policyId,
    policyVersion: policy.version,
  };
  return [
    {
      type: 'ReportRequested',
      data: {
        ...facts,
        userId: command.userId,
        policyName: policy.name,
        skippedSections: policy.sections.filter((type) => !sources.includes(type)),
        yearMonthDay: Number(at.slice(0, 10).replace(/-/g, '')),
        sections: types.map((type, i) => ({ id: command.sectionIds[i]!, type })),
        ranWithoutSCRReason: sources.length < policy.sections.length ? RAN_WITHOUT_SCR_REASON : null,
        inputs: command.inputs,
        product: command.product ?? null,
      },
    },
  ];
}

function startProcessing(state: ReportState, at: string): ReportEvent[] {
  const facts = visibleTo(state, null);
  if (facts.status !== 'PENDING') return [];
  return [{ type: 'ReportProcessingStarted', data: { ...facts, status: 'PROCESSING', startedAt: at } }];
}

/**
 * Results of sources not yet recorded become sections; a repeated result is ignored, so a
 * process that restarts mid-report just finishes it. Results of a report still PENDING start it
 * in the same append. The last source triggers the decision.
 */
function recordSectionResults(command: Extract<ReportCommand, { type: 'RecordSectionResults' }>, state: ReportState): ReportEvent[] {
  const requested = visibleTo(state, null);
  if (command.policy.policyId !== requested.policyId || command.policy.version !== requested.policyVersion) {
    throw new Error(`report ${requested.reportId} runs under policy ${requested.policyId} v${requested.policyVersion}, not the one given`);
  }
  if (state.sourcesFinished || state.processingFailed) return [];
  const pending = new Set(pendingSources(state));
  const fresh = command.results.filter((r) => pending.has(r.sectionType));
  if (fresh.length === 0 && pending.size > 0) return [];
  const events = startProcessing(state, command.at);
  let facts = events.reduce(evolveReport, state).facts!;
  for (const result of fresh) {
    if (!pending.delete(result.sectionType)) continue;
    if (result.provenance?.sandbox) facts = { ...facts, sandboxData: true };
    events.push({
      type: 'ReportSectionUpdated',
      data: {
        ...facts,
        sectionId: state.sectionIds[result.sectionType]!,
        sectionType: result.sectionType,
        outcome: result.outcome,
        details: result.details,
        selectedIntegrations: result.selectedIntegrations,
        errors: result.errors,
        integrationCount: result.integrationCount,
        updatedAt: command.at,
        ...(result.provenance ? { provenance: result.provenance } : {}),
      },
    });
  }
  if (pending.size > 0) return events;
  return [...events, ...finalizeReport(events.reduce(evolveReport, state), command.policy, command.at)];
}

/** A report whose sources all answered has nothing left to fail; one already failed fails once. */
function failProcessing(command: Extract<ReportCommand, { type: 'FailProcessing' }>, state: ReportState): ReportEvent[] {
  const facts = visibleTo(state, null);
  if (state.sourcesFinished || state.processingFailed) return [];
  return [
    {
      type: 'ReportProcessingFailed',
      data: { ...facts, status: 'FAILED', reason: Messages.reportProcessingFailed, attempts: command.attempts, failedAt: command.at },
    },
  ];
}

function recordManualAnalysis(command: Extract<ReportCommand, { type: 'RecordManualAnalysis' }>, state: ReportState): ReportEvent[] {
  const before = visibleTo(state, command.organizationId);
  if (!state.decided) throw new DomainError('conflict', Messages.reportStillProcessing);
  if (command.kind === 'MANUAL_ANALYSIS' && state.manualAnalysis) throw new DomainError('conflict', Messages.manualAnalysisExists);
  if (command.kind === 'MANUAL_REANALYSIS' && !state.manualAnalysis) throw new DomainError('conflict', Messages.manualAnalysisMissing);
  const analyst = { kind: command.kind, decidedBy: 'ANALYST', analystId: command.analystId, analystName: command.analystName, previousAnalystId: state.manualAnalysis?.analystId ?? null } as const;
  return [reportDecided(before, command.approved, analyst, command.commentary, command.at, decisionProvenance(before, ANALYST_PROVIDER))];
}

export const reportDecider: Decider<ReportCommand, ReportEvent, ReportState> = {
  initialState: initialReportState,
  evolve: evolveReport,
  decide(command, state) {
    switch (command.type) {
      case 'RequestReport':
        return requestReport(command, state);
      case 'StartProcessing':
        return startProcessing(state, command.at);
      case 'RecordSectionResults':
        return recordSectionResults(command, state);
      case 'FailProcessing':
        return failProcessing(command, state);
      case 'RecordManualAnalysis':
        return recordManualAnalysis(command, state);
      case 'SubmitFinancialStatements':
        return submitFinancialStatements(command, state);
      case 'BeginFinancialExtractionAttempt':
        return beginFinancialExtractionAttempt(command, state);
      case 'RecordFinancialExtraction':
        return recordFinancialExtraction(command, state);
      case 'RecordExport': {
        const facts = visibleTo(state, command.organizationId);
        if (!state.sourcesFinished) throw new DomainError('conflict', Messages.reportStillProcessing);
        const { format, blobId, fileName, contentType, sizeBytes, url, urlExpiresAt, userId, at } = command;
        return [{ type: 'ReportExported', data: { ...facts, format, blobId, fileName, contentType, sizeBytes, url, urlExpiresAt, userId, exportedAt: at } }];
      }
      case 'RecordExportFailure': {
        const facts = visibleTo(state, command.organizationId);
        const { format, reason, userId, at } = command;
        return [{ type: 'ReportExportFailed', data: { ...facts, format, reason, userId, failedAt: at } }];
      }
      case 'RecordCommitteeDecision':
        return recordCommitteeDecision(command, state);
      case 'RequestSectionOpinions':
      case 'RecordSectionOpinion':
        return decideOpinion(command, state);
    }
  },
};
