import type Logger from 'bunyan';
import type { FileOpinion } from '../../domain/collection/commands.ts';
import type { CollectionEventData } from '../../domain/collection/events.ts';
import { documentOpinionProvenance, type DocumentAssessedData, type DocumentDecidedData, type DocumentReceivedData } from '../../domain/registry/document-events.ts';
import { ANALYST_PROVIDER } from '../../domain/report/decided.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { AppContext } from '../context.ts';
import { SYSTEM_ACTOR } from './actor.ts';
import { loadCollection, runCollectionCommand } from './commands.ts';
import { recordDocumentOnRegistry } from '../registry/analysis/process.ts';
import { EventFollower } from '../event-follower.ts';
import { runOnCompleted } from './on-completed.ts';

/** What moves a collection from outside it: its files' analysis, its own completion, and an intake's link to its registry. */
export const COLLECTION_PROCESS_EVENTS = ['RegistryDocumentReceived', 'RegistryDocumentAssessed', 'RegistryDocumentFailed', 'RegistryDocumentDecided', 'CollectionCompleted', 'IntakeLinked'];

const opinionOf = (data: DocumentAssessedData | DocumentDecidedData): FileOpinion => ({
  registryDocumentId: data.registryDocumentId,
  attempt: data.attempt,
  type: data.type,
  verdict: data.verdict,
  score: 'score' in data ? data.score : null,
  // An operator's comment is personal data sealed on the registry's stream; the collection's
  // trail (chained, never rewritten) keeps the verdict, not the free text.
  reason: 'reason' in data ? data.reason : null,
  ...('sandbox' in data && data.sandbox ? { sandbox: true as const } : {}),
  ...('decidedByUserId' in data ? { provenance: OPERATOR_PROVENANCE } : provenanceOf(data)),
});

/** An operator's decision on the file: a person looked at it, nothing made up. */
const OPERATOR_PROVENANCE = { provider: ANALYST_PROVIDER, sandbox: false };

/** The analyser's provenance, when its event says it (an old one may not: the item then shows what the flags say). */
function provenanceOf(data: DocumentAssessedData) {
  const { provider, sandbox } = documentOpinionProvenance(data);
  return provider !== null && sandbox !== null ? { provenance: { provider, sandbox } } : {};
}

/**
 * A registry document sent for an item (its `source`) moves the item: received -> ITEM_SUBMITTED
 * (when the recipient page has not recorded it yet) and ITEM_PROCESSING; assessed, failed or decided
 * -> the opinion, which AUTOMATIC mode resolves and REVIEW mode only records. A refusal (the
 * collection closed, the item resolved meanwhile) is a business answer, not a failure: logged, skipped.
 */
async function reactToDocument(app: AppContext, event: RecordedEvent, log: Logger): Promise<void> {
  const data = event.data as unknown as DocumentReceivedData & DocumentAssessedData & DocumentDecidedData;
  if (!data.source) return;
  const { collectionId, itemId, recipientId } = data.source;
  const run = (command: Parameters<typeof runCollectionCommand>[4]) => runCollectionCommand(app, data.organizationId, collectionId, SYSTEM_ACTOR, command);
  try {
    if (event.type === 'RegistryDocumentReceived') {
      const submitted = { type: 'SubmitItemDocument' as const, itemId, recipientId, registryDocumentId: data.registryDocumentId };
      await runCollectionCommand(app, data.organizationId, collectionId, data.uploadedBy, submitted);
      await run({ type: 'StartItemProcessing', itemId, registryDocumentId: data.registryDocumentId });
    } else if (event.type === 'RegistryDocumentDecided') {
      await run({ type: 'DecideItemDocument', itemId, opinion: { ...opinionOf(data), verdict: data.verdict } });
    } else {
      // A technical failure carries no verdict: the item waits for the operator.
      const opinion = opinionOf(data);
      await run({ type: 'AssessItem', itemId, opinion: event.type === 'RegistryDocumentFailed' ? { ...opinion, verdict: null } : opinion, deployment: app.config.DEPLOYMENT });
    }
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    log.info({ type: event.type, collectionId, itemId, refusal: error.message }, 'collection refused a document outcome');
  }
}

/**
 * An intake linked: the registry counts the outcomes its files already had (completeness, KYC
 * status). Recorded again on a replay, which changes nothing; outcomes that come later are
 * counted as they come (recordDocumentOnRegistry).
 */
async function countIntakeFiles(app: AppContext, data: CollectionEventData): Promise<void> {
  const state = await loadCollection(app, data.collectionId);
  for (const file of state.items.flatMap((item) => item.files)) await recordDocumentOnRegistry(app, file.registryDocumentId);
}

export async function reactToCollectionEvent(app: AppContext, event: RecordedEvent, log: Logger): Promise<void> {
  if (event.type === 'CollectionCompleted') return runOnCompleted(app, event.data as unknown as CollectionEventData, log);
  if (event.type === 'IntakeLinked') return countIntakeFiles(app, event.data as unknown as CollectionEventData);
  return reactToDocument(app, event, log);
}

/** A collection's events one after another (they all write its stream), collections side by side. */
const collectionOf = (event: RecordedEvent) => String((event.data.source as { collectionId?: string } | null)?.collectionId ?? event.data.collectionId ?? event.streamName);

export const collectionProcessWorker = () =>
  new EventFollower('collection-items', COLLECTION_PROCESS_EVENTS, (app, log) => (event) => reactToCollectionEvent(app, event, log), { concurrent: true, keyOf: collectionOf });
