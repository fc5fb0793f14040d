import { createHash } from 'node:crypto';
import type { EntityType } from '../../domain/registry/events.ts';
import { registryDocumentDecider } from '../../domain/registry/document-decider.ts';
import { registryDocumentStream } from '../../domain/registry/document-events.ts';
import type { ReportFacts } from '../../domain/report/public-events.ts';
import { PostgresBlobStore } from '../blob-store.ts';
import { loadState } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { ensureRegistry, receiveDocument, REGISTRY_DOCUMENT_MAX_BYTES } from '../registry/intake-commands.ts';

type App = Pick<AppContext, 'store' | 'ids' | 'clock' | 'db' | 'config'>;

/** An id a replay of the same batch computes again, so a crash between two steps registers nothing twice. */
const stableId = (...parts: string[]) => createHash('sha256').update(parts.join(':')).digest('hex').slice(0, 24);

export interface FileToRegister {
  key: string;
  fileName: string;
  bytes: Buffer;
}

/**
 * Each PDF of a batch becomes a DEMONSTRACOES_FINANCEIRAS document of the registry of the report's
 * subject (found or created; named after the BASIC_INFORMATION section when the report has one).
 * The registry's analysis then classifies it like any upload. Files over the registry's limit
 * (16 MB; a batch allows 50 MB each) are extracted but not registered: their id is null.
 */
export async function registerStatements(
  app: App,
  facts: ReportFacts,
  subjectName: string | null,
  batchId: string,
  userId: string,
  files: readonly FileToRegister[],
): Promise<{ registryId: string; registryDocumentIds: Array<string | null> }> {
  const entityType: EntityType = facts.type === 'cpf' ? 'PERSON' : 'COMPANY';
  const actor = { actorType: 'USER' as const, actorId: userId };
  const { registryId } = await ensureRegistry(app, facts.organizationId, { document: facts.document, name: subjectName ?? facts.document, entityType }, actor);
  // Side by side: each file is its own document stream, and the blob inserts overlap.
  const registryDocumentIds = await Promise.all(
    files.map(async (file): Promise<string | null> => {
      if (file.bytes.length > REGISTRY_DOCUMENT_MAX_BYTES) return null;
      const documentId = stableId('financial', batchId, file.key, 'document');
      const blobId = stableId('financial', batchId, file.key, 'blob');
      const { state } = await loadState(app.store, registryDocumentStream(documentId), registryDocumentDecider);
      if (state.received) return documentId;
      // A crash after storing the bytes but before the document: the replay stores them again.
      await new PostgresBlobStore(app.db).delete([blobId]);
      const planned = [documentId, blobId];
      const ids = { objectId: () => planned.shift() ?? app.ids.objectId(), uuid: () => app.ids.uuid() };
      const input = { organizationId: facts.organizationId, registryId, fileName: file.fileName, bytes: file.bytes, expectedType: 'DEMONSTRACOES_FINANCEIRAS' as const, source: null, actor };
      await receiveDocument({ ...app, ids }, input);
      return documentId;
    }),
  );
  return { registryId, registryDocumentIds };
}
