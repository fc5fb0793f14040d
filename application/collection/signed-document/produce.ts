import type Logger from 'bunyan';
import type { CollectionEventData } from '../../../domain/collection/events.ts';
import type { SignaturePayloads } from '../../../domain/collection/kinds/signature.ts';
import { registryDocumentDecider } from '../../../domain/registry/document-decider.ts';
import { registryDocumentStream } from '../../../domain/registry/document-events.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import type { RecordedEvent } from '../../../platform/eventstore/port.ts';
import { COLLECTION_TRAIL_PROJECTION } from '../../../projections/collection/trail-projection.ts';
import { exportTrail, lastTrailSeq } from '../../../projections/collection/trail-queries.ts';
import { PostgresBlobStore, type BlobStore } from '../../blob-store.ts';
import { loadState } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';
import { loadCollection } from '../commands.ts';
import { recordSignedDocument } from '../signature/commands.ts';
import { buildSignedCopy, sha256Hex, type SigningOptions } from './build.ts';
import type { SignedCopySignature } from '../../../domain/collection/kinds/signature.ts';
import type { SigningIdentity } from './certificate.ts';
import { copyBlobId, plannedCopies, type PlannedCopy } from './copies.ts';

type Completed = CollectionEventData<SignaturePayloads['SignatureCompleted']> & { itemId: string };

/** Name and version of the trail attached inside a signed copy. */
export const ITEM_TRAIL_FORMAT = 'collection-item-trail/1';

/** The PDF the parties signed: the item's registry document, of the collection's organization. */
async function loadOriginal(app: AppContext, blobs: BlobStore, organizationId: string, registryDocumentId: string) {
  const { state } = await loadState(app.store, registryDocumentStream(registryDocumentId), registryDocumentDecider);
  const received = state.received;
  if (!received || received.organizationId !== organizationId) return null;
  const blob = await blobs.get(received.blobId);
  return blob && { bytes: blob.bytes, fileName: received.fileName };
}

/**
 * The item's trail entries up to the completion, as the trail listing shows them (seq, envelope,
 * entry and chain hashes), without seals: those are signed later by the sealer, and a copy made
 * on a retry must carry what the first attempt would have. An INDIVIDUAL copy carries the entries
 * of its party and those of no party.
 */
async function itemTrail(app: AppContext, event: RecordedEvent, completed: Completed, recipientId: string | null) {
  await app.readYourWrites([COLLECTION_TRAIL_PROJECTION], event.position);
  const lastSeq = Number(event.revision) + 1;
  if ((await lastTrailSeq(app.db, completed.organizationId, completed.collectionId)) < lastSeq) {
    throw new Error(`the trail of collection ${completed.collectionId} has not reached the completion yet`);
  }
  const entries = [];
  for await (const { seal: _, ...exported } of exportTrail(app.db, completed.organizationId, completed.collectionId, lastSeq)) {
    const { itemId, recipientId: of } = exported.entry;
    if (itemId === completed.itemId && (recipientId === null || of === null || of === recipientId)) entries.push(exported);
  }
  return { format: ITEM_TRAIL_FORMAT, organizationId: completed.organizationId, collectionId: completed.collectionId, itemId: completed.itemId, recipientId, entries };
}

/**
 * SignatureCompleted -> the signed copies (one for JOINT, one per party for INDIVIDUAL), each
 * stored in the blob store and recorded with its SHA-256 (SignatureDocumentGenerated). Replays
 * are harmless: a copy already recorded is skipped, one already stored (a crash before it was
 * recorded) is recorded from the stored bytes. A refusal (the item gone, a copy recorded
 * meanwhile) is logged and skipped, like the collection process does.
 */
export async function produceSignedCopies(app: AppContext, identity: SigningIdentity, options: SigningOptions, event: RecordedEvent, log: Logger): Promise<void> {
  // How long the completion waited for this worker: the queue a burst of completions builds.
  const waitedMs = Date.now() - event.createdAt.getTime();
  const completed = event.data as unknown as Completed;
  const { organizationId, collectionId, itemId } = completed;
  if (!itemId) return;
  const state = await loadCollection(app, collectionId);
  const item = state.items.find((i) => i.itemId === itemId);
  const registryDocumentId = item?.config?.signature?.registryDocumentId;
  if (!item || !registryDocumentId) {
    log.warn({ collectionId, itemId }, 'signed copy: the item has no document to sign; nothing produced');
    return;
  }
  const blobs = new PostgresBlobStore(app.db);
  const missing = plannedCopies(state, item).filter((copy) => !item.details.signature?.signedCopies.some((c) => (c.recipientId ?? null) === copy.recipientId));
  if (!missing.length) return;
  const original = await loadOriginal(app, blobs, organizationId, registryDocumentId);
  if (!original) {
    log.error({ collectionId, itemId, registryDocumentId }, 'signed copy: the signed document or its file is missing; nothing produced');
    return;
  }
  for (const copy of missing) {
    const started = performance.now();
    const stored = await storedCopy(app, identity, options, blobs, event, completed, copy, original);
    try {
      await recordSignedDocument(app, { organizationId, collectionId, itemId, recipientId: copy.recipientId, provider: completed.payload.provider, ...stored });
      log.info(
        { collectionId, itemId, recipientId: copy.recipientId, sha256: stored.sha256, level: stored.signature?.level, waitedMs, ms: Math.round(performance.now() - started) },
        'signed copy produced',
      );
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      log.info({ collectionId, itemId, recipientId: copy.recipientId, refusal: error.message }, 'signed copy not recorded');
    }
  }
}

async function storedCopy(
  app: AppContext,
  identity: SigningIdentity,
  options: SigningOptions,
  blobs: BlobStore,
  event: RecordedEvent,
  completed: Completed,
  copy: PlannedCopy,
  original: { bytes: Buffer; fileName: string },
): Promise<{ blobId: string; sha256: string; signature?: SignedCopySignature }> {
  const blobId = copyBlobId(completed.collectionId, completed.itemId, copy.recipientId);
  const existing = await blobs.get(blobId);
  // Stored by an attempt that crashed before recording it: recorded without the description (only that attempt knew it).
  if (existing) return { blobId, sha256: sha256Hex(existing.bytes) };
  const signed = await buildSignedCopy(
    {
      original: original.bytes,
      documentName: original.fileName,
      collectionId: completed.collectionId,
      itemId: completed.itemId,
      provider: completed.payload.provider,
      completedAt: completed.occurredAt,
      generatedAt: app.clock.now(),
      parties: copy.parties,
      trail: await itemTrail(app, event, completed, copy.recipientId),
    },
    identity,
    options,
  );
  const fileName = `assinado-${completed.collectionId}-${completed.itemId}${copy.recipientId ? `-${copy.recipientId}` : ''}.pdf`;
  await blobs.put({ id: blobId, organizationId: completed.organizationId, contentType: 'application/pdf', fileName, bytes: signed.bytes });
  return { blobId, sha256: signed.sha256, signature: signed.signature };
}
