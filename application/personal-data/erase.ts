import { keyringFor } from '../../config/index.ts';
import { CollectionMessages } from '../../domain/collection/messages.ts';
import { parseDocument, type DocumentType } from '../../domain/shared/document.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { documentSubject, eraseSubject, subjectId, subjectKeysFor } from '../../platform/personal-data/index.ts';
import { identityImageBlobIdsOfSubject } from '../../projections/collection/identity-queries.ts';
import { exportBlobIdsOfSubject, reportIdsOfSubject } from '../../projections/report/queries.ts';
import { eraseDeliveryBodiesOfSubject } from '../../projections/webhook/bodies.ts';
import { PostgresBlobStore } from '../blob-store.ts';
import type { AppContext } from '../context.ts';
import { statementKeysOfReports } from '../financial-upload/sweep.ts';
import { objectStoreFor } from '../object-store.ts';
import { loadCollection } from '../collection/commands.ts';
import { recipientSubject } from '../collection/personal-data.ts';
import { offerContactSubject } from '../messaging/personal-data.ts';
import { proposalIdsOfSubject } from '../../projections/proposal/queries.ts';

export interface ErasureRequest {
  organizationId: string;
  document: string;
  type: DocumentType;
  /** The user who asked, or null from the command line. */
  erasedBy: string | null;
}

/**
 * LGPD erasure of one person, as one organization holds them: their key is deleted, so every
 * event that carries their data (and every rebuild from those events) reads it as erased, and
 * the PersonalDataErased event makes the read models erase what they copied. Export files print
 * the person's data and are deleted, and so are the images of identity checks in the person's
 * collections, the financial statements sent for their reports and the webhook bodies kept with their data.
 * The offer messages of the person's proposals are sealed with a key of the proposal's contact
 * (offerContactSubject: a message names no document); those keys go too, first, while the
 * proposals read model still finds the proposals by the holder's subject (a crash then repeats them).
 */
export async function erasePersonalData(app: Pick<AppContext, 'config' | 'db' | 'store' | 'clock'>, request: ErasureRequest) {
  const document = parseDocument(request.document, request.type);
  const pepper = keyringFor(app.config, 'pepper');
  const subject = subjectId(pepper, documentSubject(request.organizationId, document.type, document.digits));
  // Read before the erasure: once it is applied, the identity read model drops the subject's checks.
  const images = await identityImageBlobIdsOfSubject(app.db, subject);
  const statements = await statementKeysOfReports(app, await reportIdsOfSubject(app.db, subject));
  const keys = subjectKeysFor(app.config, app.db);
  const erasure = (id: string) => eraseSubject(app.store, keys, { subjectId: id, organizationId: request.organizationId, erasedBy: request.erasedBy, erasedAt: app.clock.now().toISOString() });
  for (const proposalId of await proposalIdsOfSubject(app.db, subject)) {
    await erasure(subjectId(pepper, offerContactSubject(request.organizationId, proposalId)));
  }
  const erased = await erasure(subject);
  const blobs = new PostgresBlobStore(app.db);
  const exportsDeleted = await blobs.delete(await exportBlobIdsOfSubject(app.db, subject));
  await blobs.delete(images);
  // The financial statements sent for the person's reports (their PDFs name the person), and the
  // webhook bodies built from the person's data and kept for redelivery.
  await objectStoreFor(app.config).delete(statements);
  if (app.store.kind === 'postgres') await eraseDeliveryBodiesOfSubject(app.db, subject);
  return { ...erased, exportsDeleted };
}

/**
 * LGPD erasure of a collection recipient (a party: recipients have no CPF in a collection): the
 * key that sealed their name, contacts, messages, consent and signature evidence and their
 * identity checks' image ids is deleted, and the images themselves go first (read from the
 * collection's stream while still readable; a crash before the key goes repeats a delete that
 * finds nothing). The identity read model then drops their checks. 404 for a collection of
 * another organization or a recipient it does not have.
 */
export async function eraseCollectionRecipient(
  app: Pick<AppContext, 'config' | 'db' | 'store' | 'clock'>,
  request: { organizationId: string; collectionId: string; recipientId: string; erasedBy: string | null },
) {
  const state = await loadCollection(app, request.collectionId);
  if (state.organizationId !== request.organizationId) throw new DomainError('not_found', Messages.collectionNotFound);
  if (!state.recipients.some((r) => r.recipientId === request.recipientId)) throw new DomainError('not_found', CollectionMessages.recipientNotFound);
  const images = state.items.flatMap((item) => item.details.identity?.started ?? []).filter((check) => check.recipientId === request.recipientId);
  const imagesDeleted = await new PostgresBlobStore(app.db).delete(images.flatMap((check) => check.imageBlobIds));
  const subject = subjectId(keyringFor(app.config, 'pepper'), recipientSubject(request.organizationId, request.recipientId));
  const erased = await eraseSubject(app.store, subjectKeysFor(app.config, app.db), {
    subjectId: subject,
    organizationId: request.organizationId,
    erasedBy: request.erasedBy,
    erasedAt: app.clock.now().toISOString(),
  });
  // The webhook bodies built from the recipient's data (collection.message.failed names them).
  if (app.store.kind === 'postgres') await eraseDeliveryBodiesOfSubject(app.db, subject);
  return { ...erased, imagesDeleted };
}
