import { setTimeout as sleep } from 'node:timers/promises';
import type Logger from 'bunyan';
import { FinancialExtractionMessages } from '../../domain/financial/messages.ts';
import { reportDecider } from '../../domain/report/decider.ts';
import { reportStream } from '../../domain/report/events.ts';
import type { RecordFinancialExtraction } from '../../domain/report/extraction-decider.ts';
import type { FinancialStatementsSubmitted } from '../../domain/report/financial-events.ts';
import type { ReportState } from '../../domain/report/state.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { handleCommand, loadState } from '../command-handler.ts';
import { ocrSettingsFor } from '../document-text.ts';
import type { AppContext } from '../context.ts';
import type { LanguageModel } from '../llm/port.ts';
import type { ObjectStore } from '../object-store.ts';
import { analyseBatch, MissingStatementError, readBatch } from './extract.ts';
import { registerStatements } from './registry.ts';

export const EXTRACTION_EVENT_TYPES = ['FinancialStatementsSubmitted'] as const;

export interface ExtractionPorts {
  store: ObjectStore;
  model: LanguageModel;
  /** Waits between tries (tests pass a clock-free one). */
  sleep?: (ms: number) => Promise<void>;
}

type Outcome = RecordFinancialExtraction['outcome'];

const subjectName = (state: ReportState): string | null => {
  const name = state.results.BASIC_INFORMATION?.details?.name;
  return typeof name === 'string' && name ? name : null;
};

/**
 * Reacts to FinancialStatementsSubmitted: reads the batch from the object store, registers each
 * PDF on the subject's registry, analyses the batch as one and records the outcome on the report
 * (the BALANCE_SHEET section and FinancialStatementsExtracted, or the section in ERROR and
 * FinancialStatementsExtractionFailed). Failures of the store or the registry are tried again
 * FINANCIAL_EXTRACTION_ATTEMPTS times in all; a file gone from the store or a batch with nothing
 * readable ends at once. Either way the section gets an outcome: it never stays waiting. A batch
 * with an outcome already is a replay and is left alone.
 */
export class FinancialExtractionProcess {
  constructor(
    private readonly app: AppContext,
    private readonly ports: ExtractionPorts,
    private readonly log: Logger,
  ) {}

  async handle(event: RecordedEvent): Promise<void> {
    const submitted = event.data as unknown as FinancialStatementsSubmitted['data'];
    const stream = reportStream(submitted.reportId);
    const { state } = await loadState(this.app.store, stream, reportDecider);
    if (state.financialBatches?.[submitted.batchId]) return;
    const { attempt, outcome } = await this.withRetries(state, submitted);
    if (!outcome) return;
    await handleCommand(this.app.store, stream, reportDecider, {
      type: 'RecordFinancialExtraction',
      batchId: submitted.batchId,
      attempt,
      sectionId: this.app.ids.objectId(),
      outcome,
      at: this.app.clock.now().toISOString(),
    });
  }

  /**
   * Each try is recorded before it runs and numbered by the report, so tries a crashed process
   * began count too: after a restart the extraction resumes at the next number, and a batch whose
   * tries are spent ends in ERROR without another.
   */
  private async withRetries(state: ReportState, submitted: FinancialStatementsSubmitted['data']): Promise<{ attempt: number; outcome: Outcome | null }> {
    const { FINANCIAL_EXTRACTION_ATTEMPTS: attempts, FINANCIAL_EXTRACTION_RETRY_MS: retryMs } = this.app.config;
    const pause = this.ports.sleep ?? ((ms: number) => sleep(ms));
    const unavailable = (attempt: number) => ({ attempt, outcome: { kind: 'ERROR', code: 'INTEGRATION_UNAVAILABLE', reason: FinancialExtractionMessages.unavailable } as const });
    let begun = state.financialAttempts?.[submitted.batchId] ?? 0;
    if (begun >= attempts) return unavailable(begun);
    for (;;) {
      const attempt = await this.begin(submitted);
      if (attempt === null) return { attempt: begun, outcome: null };
      begun = attempt;
      try {
        return { attempt, outcome: await this.extract(state, submitted) };
      } catch (error) {
        if (error instanceof MissingStatementError) return { attempt, outcome: { kind: 'ERROR', code: 'INTEGRATION_NO_DATA', reason: error.message } };
        this.log.warn({ err: error, reportId: submitted.reportId, batchId: submitted.batchId, attempt }, 'financial statements extraction failed');
        if (attempt >= attempts) return unavailable(attempt);
        await pause(retryMs * 4 ** (attempt - 1));
      }
    }
  }

  /** The number of the try just begun; null when another process recorded the batch's outcome meanwhile. */
  private async begin(submitted: FinancialStatementsSubmitted['data']): Promise<number | null> {
    const { events } = await handleCommand(this.app.store, reportStream(submitted.reportId), reportDecider, {
      type: 'BeginFinancialExtractionAttempt',
      batchId: submitted.batchId,
      at: this.app.clock.now().toISOString(),
    });
    const begun = events.find((e) => e.type === 'FinancialStatementsExtractionAttempted');
    return begun ? (begun.data as { attempt: number }).attempt : null;
  }

  private async extract(state: ReportState, submitted: FinancialStatementsSubmitted['data']): Promise<Outcome> {
    const files = await readBatch(this.ports.store, submitted.files, ocrSettingsFor(this.app.config), state.facts!.organizationId);
    const unrecognised = files.filter((f) => f.ocrProblem);
    if (!files.some((f) => f.read.periods.length) && !unrecognised.length) return { kind: 'ERROR', code: 'INTEGRATION_NO_DATA', reason: FinancialExtractionMessages.nothingRead };
    const toRegister = files.map(({ file, bytes }) => ({ key: file.key, fileName: file.fileName, bytes }));
    const { registryId, registryDocumentIds } = await registerStatements(this.app, state.facts!, subjectName(state), submitted.batchId, submitted.userId, toRegister);
    // Scans OCR could not read, and nothing else read: registered above, where the registry's
    // analysis puts each in MANUAL_REVIEW with the same reason; the section says why.
    if (!files.some((f) => f.read.periods.length)) {
      return {
        kind: 'ERROR',
        code: 'INTEGRATION_UNAVAILABLE',
        reason: FinancialExtractionMessages.scansUnread(
          unrecognised.map((f) => f.file.fileName),
          unrecognised[0]!.ocrProblem!,
        ),
      };
    }
    const analysis = await analyseBatch(files, registryDocumentIds, this.ports.model);
    if (!analysis.periods.length) return { kind: 'ERROR', code: 'INTEGRATION_NO_DATA', reason: FinancialExtractionMessages.nothingRead };
    return { kind: 'DONE', analysis, registryId };
  }
}
