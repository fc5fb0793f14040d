import type Logger from 'bunyan';
import { registryDocumentDecider, type AnalysisOutcome, type RegistryDocumentState } from '../../../domain/registry/document-decider.ts';
import { registryDocumentStream } from '../../../domain/registry/document-events.ts';
import { registryDecider } from '../../../domain/registry/decider.ts';
import { registryStream } from '../../../domain/registry/events.ts';
import type { RecordedEvent } from '../../../platform/eventstore/port.ts';
import { PERSONAL_DATA_ERASED, type PersonalDataErased } from '../../../platform/personal-data/index.ts';
import { deleteErasedSubjectFiles } from '../erasure-commands.ts';
import { PostgresBlobStore } from '../../blob-store.ts';
import { handleCommand, loadState } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import type { DocumentAnalyser } from './port.ts';
import { collectionDecider } from '../../../domain/collection/decider.ts';
import { collectionStream } from '../../../domain/collection/events.ts';
import { feedsRegistry } from '../../../domain/collection/state.ts';

export const ANALYSIS_FAILED = 'Falha técnica na análise do documento. Reprocesse-o.';

/** The events the process manager reacts to: a document to analyse, an outcome the registry must count, an erasure whose files go. */
export const ANALYSIS_EVENT_TYPES = ['RegistryDocumentReceived', 'RegistryDocumentReprocessed', 'RegistryDocumentAssessed', 'RegistryDocumentFailed', 'RegistryDocumentDecided', PERSONAL_DATA_ERASED];

/**
 * The analysis of registry documents: on Received or Reprocessed, Progressed (EXTRACTING), the
 * analyser's opinion, then Assessed or Failed; on every outcome, the registry records it and
 * recomputes completeness and KYC status. Each step is decided against the document's stream, so
 * replaying an event after a crash repeats nothing that was recorded.
 */
export class DocumentAnalysisProcess {
  constructor(
    private readonly app: AppContext,
    private readonly analyser: DocumentAnalyser,
    private readonly log: Logger,
  ) {}

  async handle(event: RecordedEvent): Promise<void> {
    if (event.type === PERSONAL_DATA_ERASED) {
      const deleted = await deleteErasedSubjectFiles(this.app, event.data as unknown as PersonalDataErased, event.position);
      if (deleted) this.log.info({ deleted }, 'files of an erased subject deleted');
      return;
    }
    const registryDocumentId = String(event.data.registryDocumentId);
    if (event.type === 'RegistryDocumentReceived' || event.type === 'RegistryDocumentReprocessed') {
      await this.analyse(registryDocumentId, event.type === 'RegistryDocumentReceived' ? 1 : Number(event.data.attempt));
    } else {
      await recordDocumentOnRegistry(this.app, registryDocumentId);
    }
  }

  private async analyse(registryDocumentId: string, attempt: number): Promise<void> {
    const stream = registryDocumentStream(registryDocumentId);
    const now = () => this.app.clock.now().toISOString();
    const { state } = await handleCommand(this.app.store, stream, registryDocumentDecider, { type: 'StartAnalysis', attempt, at: now() });
    if (state.status !== 'PROCESSING' || state.attempt !== attempt || !state.received) return;
    const outcome = await this.opinion(state, state.received.blobId);
    await handleCommand(this.app.store, stream, registryDocumentDecider, { type: 'RecordAnalysis', attempt, outcome, at: now() });
  }

  private async opinion(state: RegistryDocumentState, blobId: string): Promise<AnalysisOutcome> {
    try {
      const blob = await new PostgresBlobStore(this.app.db).get(blobId);
      if (!blob) return { kind: 'failure', reason: ANALYSIS_FAILED };
      const { expectedType, mimeType, organizationId, registryId } = state.received!;
      const registry = (await loadState(this.app.store, registryStream(registryId), registryDecider)).state.record;
      const subject = registry ? { document: registry.document, name: registry.name } : null;
      return await this.analyser.analyse({ bytes: blob.bytes, mimeType, expectedType, forceType: state.forceType, asOf: this.app.clock.now().toISOString(), subject, organizationId });
    } catch (error) {
      this.log.warn({ err: error, registryDocumentId: state.received!.registryDocumentId }, 'document analysis failed');
      return { kind: 'failure', reason: ANALYSIS_FAILED };
    }
  }
}

/**
 * The registry counts the document's latest outcome (read from its stream, so a replay
 * converges). A file of a public form's intake counts only once an operator linked the intake:
 * the collection is read after the outcome, so an outcome recorded before the link is counted by
 * the link (application/collection/process.ts) and one recorded after it is counted here.
 */
export async function recordDocumentOnRegistry(app: Pick<AppContext, 'store' | 'clock'>, registryDocumentId: string): Promise<void> {
  const { state } = await loadState(app.store, registryDocumentStream(registryDocumentId), registryDocumentDecider);
  if (!state.received) return;
  const { organizationId, registryId, intake, source } = state.received;
  if (intake && source && !feedsRegistry((await loadState(app.store, collectionStream(source.collectionId), collectionDecider)).state)) return;
  await handleCommand(app.store, registryStream(registryId), registryDecider, {
    type: 'RecordDocumentOutcome',
    organizationId,
    registryId,
    registryDocumentId,
    outcome: { type: state.type, status: state.status, verdict: state.verdict, validUntil: state.validUntil },
    at: app.clock.now().toISOString(),
  });
}
