import { registryDocumentDecider } from '../../domain/registry/document-decider.ts';
import { registryDocumentStream } from '../../domain/registry/document-events.ts';
import type { PersonalDataErased } from '../../platform/personal-data/index.ts';
import type { Position } from '../../platform/eventstore/port.ts';
import { REGISTRY_PROJECTION } from '../../projections/registry/projection.ts';
import { PostgresBlobStore } from '../blob-store.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';

/**
 * An erased subject's registry files: sealing keys make the events unreadable, but the bytes of a
 * contract or an id card are the personal data itself, so they are deleted and each deletion is
 * recorded on its document's stream (RegistryDocumentFileDeleted). The documents are those the
 * registry read model lists for the subject once it has applied everything up to the erasure. The
 * file goes first: a crash before the record only repeats a delete that finds nothing.
 */
export async function deleteErasedSubjectFiles(app: AppContext, erasure: PersonalDataErased, position: Position): Promise<number> {
  await app.readYourWrites([REGISTRY_PROJECTION], position);
  const documents: Array<{ id: string; blob_id: string }> = await app.db('registry_documents').where({ subject_id: erasure.subjectId }).select('id', 'blob_id');
  const blobs = new PostgresBlobStore(app.db);
  let deleted = 0;
  for (const document of documents) {
    deleted += await blobs.delete([document.blob_id]);
    await handleCommand(app.store, registryDocumentStream(document.id), registryDocumentDecider, { type: 'RecordFileDeleted', at: app.clock.now().toISOString() });
  }
  return deleted;
}
