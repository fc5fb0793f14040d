import { balanceSheetDetails, FINANCIAL_STATEMENTS_INTEGRATION, latestPeriodAt, publishedPeriods, type FinancialAnalysis } from '../financial/section.ts';
import type { ReportEvent } from './events.ts';
import type { FinancialStatementsExtracted, FinancialStatementsExtractionAttempted, FinancialStatementsExtractionFailed } from './extraction-events.ts';
import { SECTION_ERROR_MESSAGES, type SectionErrorCode } from './sections.ts';
import type { ReportState } from './state.ts';

export interface RecordFinancialExtraction {
  type: 'RecordFinancialExtraction';
  batchId: string;
  attempt: number;
  /** A fresh ObjectId: the BALANCE_SHEET section's id when the report's policy had none. */
  sectionId: string;
  outcome: { kind: 'DONE'; analysis: FinancialAnalysis; registryId: string | null } | { kind: 'ERROR'; code: SectionErrorCode; reason: string };
  at: string;
}

/** The extraction process begins a try at a batch; the event numbers it. */
export interface BeginFinancialExtractionAttempt {
  type: 'BeginFinancialExtractionAttempt';
  batchId: string;
  at: string;
}

export function beginFinancialExtractionAttempt(command: BeginFinancialExtractionAttempt, state: ReportState): ReportEvent[] {
  const facts = state.facts;
  if (!facts || !Object.values(state.financialKeys ?? {}).includes(command.batchId)) throw new Error(`batch ${command.batchId} was never submitted to this report`);
  if (state.financialBatches?.[command.batchId]) return [];
  const attempt = (state.financialAttempts?.[command.batchId] ?? 0) + 1;
  return [{ type: 'FinancialStatementsExtractionAttempted', data: { ...facts, batchId: command.batchId, attempt, startedAt: command.at } }];
}

/** The registry document of the file that printed the latest period first, else of any file. */
function primaryDocument(analysis: FinancialAnalysis): string | null {
  const latest = analysis.periods[0];
  const ids = [...(latest?.files ?? []), ...analysis.files.keys()].map((i) => analysis.files[i]?.registryDocumentId);
  return ids.find((id): id is string => !!id) ?? null;
}

/**
 * The outcome of one submitted batch: the BALANCE_SHEET section (DONE with the periods and ratios,
 * or ERROR with why) and the extraction event, in one append. A batch already recorded is a
 * replay and appends nothing; the section keeps the id the report gave it, or the one a first
 * extraction created for a report whose policy had no BALANCE_SHEET.
 */
export function recordFinancialExtraction(command: RecordFinancialExtraction, state: ReportState): ReportEvent[] {
  const facts = state.facts;
  if (!facts || !Object.values(state.financialKeys ?? {}).includes(command.batchId)) throw new Error(`batch ${command.batchId} was never submitted to this report`);
  if (state.financialBatches?.[command.batchId]) return [];
  const { outcome, batchId, attempt, at } = command;
  const done = outcome.kind === 'DONE';
  const sectionId = state.sectionIds.BALANCE_SHEET ?? state.financialSectionId ?? command.sectionId;
  const section: ReportEvent = {
    type: 'ReportSectionUpdated',
    data: {
      ...facts,
      sectionId,
      sectionType: 'BALANCE_SHEET',
      outcome: outcome.kind,
      details: done ? balanceSheetDetails(batchId, outcome.analysis) : null,
      selectedIntegrations: [FINANCIAL_STATEMENTS_INTEGRATION],
      errors: done
        ? []
        : [{ integrationId: batchId, integrationType: FINANCIAL_STATEMENTS_INTEGRATION, code: outcome.code, message: outcome.reason || SECTION_ERROR_MESSAGES[outcome.code], occurredAt: at }],
      integrationCount: done ? 1 : 0,
      updatedAt: at,
      // Read from the statements the lender uploaded: not made up, whatever the other sections are.
      provenance: { provider: FINANCIAL_STATEMENTS_INTEGRATION, sandbox: false },
    },
  };
  if (!done) return [section, { type: 'FinancialStatementsExtractionFailed', data: { ...facts, batchId, sectionId, attempt, code: outcome.code, reason: outcome.reason, failedAt: at } }];
  const { analysis, registryId } = outcome;
  const registryDocumentIds = analysis.files.map((f) => f.registryDocumentId).filter((id): id is string => !!id);
  return [
    section,
    {
      type: 'FinancialStatementsExtracted',
      data: {
        ...facts,
        batchId,
        sectionId,
        attempt,
        registryId: registryDocumentIds.length ? registryId : null,
        registryDocumentId: primaryDocument(analysis),
        registryDocumentIds,
        periodCount: analysis.periods.length,
        latestPeriodAt: latestPeriodAt(analysis),
        periods: publishedPeriods(analysis),
        extractedAt: at,
      },
    },
  ];
}

/** Tries begun, which batches have an outcome, and the section a first extraction created. */
export function evolveExtraction(state: ReportState, event: FinancialStatementsExtractionAttempted | FinancialStatementsExtracted | FinancialStatementsExtractionFailed): ReportState {
  if (event.type === 'FinancialStatementsExtractionAttempted') return { ...state, financialAttempts: { ...state.financialAttempts, [event.data.batchId]: event.data.attempt } };
  const { [event.data.batchId]: _ended, ...financialAttempts } = state.financialAttempts ?? {};
  const financialBatches = { ...state.financialBatches, [event.data.batchId]: event.type === 'FinancialStatementsExtracted' ? ('DONE' as const) : ('ERROR' as const) };
  return { ...state, financialBatches, financialAttempts, financialSectionId: event.data.sectionId };
}
