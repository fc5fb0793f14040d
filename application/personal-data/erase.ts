import { keyringFor } from '../../config/index.ts';
import { parseDocument, type DocumentType } from '../../domain/shared/document.ts';
import { documentSubject, eraseSubject, subjectId, subjectKeysFor } from '../../platform/personal-data/index.ts';
import { identityImageBlobIdsOfSubject } from '../../projections/collection/identity-queries.ts';
import { exportBlobIdsOfSubject } from '../../projections/report/queries.ts';
import { PostgresBlobStore } from '../blob-store.ts';
import type { AppContext } from '../context.ts';

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
 * the person's data and are deleted, and so are the images of identity checks in the person's collections.
 */
export async function erasePersonalData(app: Pick<AppContext, 'config' | 'db' | 'store' | 'clock'>, request: ErasureRequest) {
  const document = parseDocument(request.document, request.type);
  const subject = subjectId(keyringFor(app.config, 'pepper'), documentSubject(request.organizationId, document.type, document.digits));
  const erased = await eraseSubject(app.store, subjectKeysFor(app.config, app.db), {
    subjectId: subject,
    organizationId: request.organizationId,
    erasedBy: request.erasedBy,
    erasedAt: app.clock.now().toISOString(),
  });
  const blobs = new PostgresBlobStore(app.db);
  const exportsDeleted = await blobs.delete(await exportBlobIdsOfSubject(app.db, subject));
  await blobs.delete(await identityImageBlobIdsOfSubject(app.db, subject));
  return { ...erased, exportsDeleted };
}
