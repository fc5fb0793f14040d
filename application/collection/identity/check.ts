import { fileTypeFromBuffer } from 'file-type';
import type { Actor } from '../../../domain/collection/commands.ts';
import type { IdentityCheck } from '../../../domain/collection/kinds/identity.ts';
import { IdentityMessages } from '../../../domain/collection/messages.ts';
import type { CollectionState } from '../../../domain/collection/state.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { Messages } from '../../../domain/shared/messages.ts';
import type { Position } from '../../../platform/eventstore/port.ts';
import { PostgresBlobStore } from '../../blob-store.ts';
import type { AppContext } from '../../context.ts';
import { runCollectionCommand } from '../commands.ts';
import { identityProviderFor } from './providers.ts';
import { IdentityProviderUnavailable, type IdentityImages, type IdentityVerification } from './provider.ts';

export interface IdentityCheckInput extends IdentityImages {
  organizationId: string;
  collectionId: string;
  itemId: string;
  recipientId: string | null;
  actor: Actor;
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png']);

/** The image's sniffed type (never the name's or the sender's claim); anything but JPEG or PNG is refused. */
async function imageType(bytes: Buffer): Promise<{ mime: string; ext: string }> {
  const type = await fileTypeFromBuffer(bytes);
  if (!type || !IMAGE_TYPES.has(type.mime)) throw new DomainError('invalid', IdentityMessages.imagesRequired);
  return type;
}

/**
 * One identity check of an IDENTITY item, or of a SIGNATURE item with flow SIGNATURE_AND_IDENTITY:
 * the images go to the blob store, IDENTITY_CHECK_STARTED records them (refused like any command:
 * the blobs are then removed), the provider compares them, IDENTITY_COMPLETED records its result.
 * The raw answer goes only to the debug log. A provider without a result leaves the check started
 * and the item as it was (waiting for the person, who may try again): DomainError 'upstream'.
 */
export async function runIdentityCheck(
  app: Pick<AppContext, 'store' | 'clock' | 'ids' | 'db' | 'config' | 'log'>,
  input: IdentityCheckInput,
): Promise<{ check: IdentityCheck; position: Position | null; state: CollectionState }> {
  const images = [
    { bytes: input.document, name: 'documento', type: await imageType(input.document) },
    { bytes: input.selfie, name: 'selfie', type: await imageType(input.selfie) },
  ];
  const checkId = app.ids.objectId();
  const blobs = new PostgresBlobStore(app.db);
  const imageBlobIds = images.map(() => app.ids.objectId());
  for (const [index, image] of images.entries()) {
    await blobs.put({ id: imageBlobIds[index]!, organizationId: input.organizationId, contentType: image.type.mime, fileName: `${image.name}.${image.type.ext}`, bytes: image.bytes });
  }
  const run = (command: Parameters<typeof runCollectionCommand>[4]) => runCollectionCommand(app, input.organizationId, input.collectionId, input.actor, command);
  const where = { itemId: input.itemId, recipientId: input.recipientId };
  try {
    await run({ type: 'StartIdentityCheck', ...where, checkId, imageBlobIds });
  } catch (error) {
    await blobs.delete(imageBlobIds);
    throw error;
  }
  const provider = identityProviderFor(app.config);
  let verification: IdentityVerification;
  try {
    verification = await provider.verify({ document: input.document, selfie: input.selfie });
  } catch (error) {
    if (!(error instanceof IdentityProviderUnavailable)) throw error;
    app.log.warn({ checkId, collectionId: input.collectionId, provider: provider.name, error: error.message }, 'identity provider gave no result');
    throw new DomainError('upstream', IdentityMessages.providerUnavailable);
  }
  const { raw, ...result } = verification;
  app.log.debug({ checkId, provider: provider.name, raw }, 'identity provider answer');
  const check = { checkId, provider: provider.name, ...result, imageCount: imageBlobIds.length, ...(provider.sandbox ? { sandbox: true as const } : {}) };
  const written = await run({ type: 'RecordIdentityResult', ...where, check, deployment: app.config.DEPLOYMENT });
  const recorded = written.state.items.find((i) => i.itemId === input.itemId)?.details.identity?.checks.find((c) => c.checkId === checkId);
  // Closed while the provider answered: the collection keeps what it had and records no result.
  if (!recorded) throw new DomainError('conflict', Messages.collectionClosed);
  return { check: recorded, position: written.position, state: written.state };
}
