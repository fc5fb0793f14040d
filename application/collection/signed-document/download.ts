import { itemOf } from '../../../domain/collection/decide-kit.ts';
import { signedCopyOf, SignedDocumentMessages } from '../../../domain/collection/kinds/signed-document.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { Messages } from '../../../domain/shared/messages.ts';
import { PostgresBlobStore, type StoredBlob } from '../../blob-store.ts';
import type { AppContext } from '../../context.ts';
import { actorOf, type Caller } from '../actor.ts';
import { loadCollection, runCollectionCommand } from '../commands.ts';

/**
 * The signed copy's bytes, fetched only by this explicit action, which the trail records
 * (ITEM_FILE_DOWNLOADED, as registry downloads record theirs). The copy is looked up before the
 * download is recorded, so a copy not generated yet leaves nothing in the trail.
 */
export async function downloadSignedCopy(
  app: Pick<AppContext, 'store' | 'clock' | 'db'>,
  caller: Caller,
  collectionId: string,
  itemId: string,
  recipientId: string | null,
): Promise<{ blob: StoredBlob; sha256: string }> {
  const state = await loadCollection(app, collectionId);
  if (state.collectionId === null || state.organizationId !== caller.organizationId) throw new DomainError('not_found', Messages.collectionNotFound);
  const copy = signedCopyOf(itemOf(state, itemId), recipientId);
  const blob = await new PostgresBlobStore(app.db).get(copy.blobId);
  if (!blob) throw new DomainError('not_found', SignedDocumentMessages.notGenerated);
  await runCollectionCommand(app, caller.organizationId, collectionId, actorOf(caller), { type: 'RecordSignedDocumentDownload', itemId, recipientId });
  return { blob, sha256: copy.sha256 };
}
