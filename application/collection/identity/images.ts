import { CollectionMessages, IdentityMessages } from '../../../domain/collection/messages.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { Messages } from '../../../domain/shared/messages.ts';
import { PostgresBlobStore, type StoredBlob } from '../../blob-store.ts';
import type { AppContext } from '../../context.ts';
import { actorOf, type Caller } from '../actor.ts';
import { loadCollection, runCollectionCommand } from '../commands.ts';

export interface IdentityImageRef {
  collectionId: string;
  itemId: string;
  checkId: string;
  /** 0: the document photo, 1: the selfie. */
  index: number;
}

/**
 * One image of an identity check for an operator: an explicit action, recorded in the trail as
 * IDENTITY_IMAGES_VIEWED (never a webhook) before the bytes are handed out. An image erased with
 * its subject, or an index past the check's images, is 404 and records nothing.
 */
export async function viewIdentityImage(app: Pick<AppContext, 'store' | 'clock' | 'db'>, caller: Caller, ref: IdentityImageRef): Promise<StoredBlob> {
  const state = await loadCollection(app, ref.collectionId);
  if (state.collectionId === null || state.organizationId !== caller.organizationId) throw new DomainError('not_found', Messages.collectionNotFound);
  const item = state.items.find((i) => i.itemId === ref.itemId);
  if (!item) throw new DomainError('not_found', CollectionMessages.itemNotFound);
  const check = item.details.identity?.started.find((s) => s.checkId === ref.checkId);
  if (!check) throw new DomainError('not_found', IdentityMessages.checkNotFound);
  const blobId = check.imageBlobIds[ref.index];
  const blob = blobId ? await new PostgresBlobStore(app.db).get(blobId) : null;
  if (!blob || blob.organizationId !== caller.organizationId) throw new DomainError('not_found', IdentityMessages.imageNotFound);
  await runCollectionCommand(app, caller.organizationId, ref.collectionId, actorOf(caller), { type: 'RecordIdentityImagesViewed', itemId: ref.itemId, checkId: ref.checkId });
  return blob;
}
