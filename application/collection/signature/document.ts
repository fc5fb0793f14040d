import type { ItemDefinition } from '../../../domain/collection/definition.ts';
import { SignatureMessages } from '../../../domain/collection/messages.ts';
import { registryDocumentDecider } from '../../../domain/registry/document-decider.ts';
import { registryDocumentStream, type DocumentReceivedData } from '../../../domain/registry/document-events.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { PostgresBlobStore } from '../../blob-store.ts';
import { loadState } from '../../command-handler.ts';
import type { AppContext } from '../../context.ts';

/**
 * The registry document a SIGNATURE item signs: one of the organization's, a PDF. Read from its
 * stream, not the read model, so a contract generated a moment ago is found at once.
 */
export async function signatureDocument(app: Pick<AppContext, 'store'>, organizationId: string, registryDocumentId: string): Promise<DocumentReceivedData> {
  const { state } = await loadState(app.store, registryDocumentStream(registryDocumentId), registryDocumentDecider);
  const received = state.received;
  if (!received || received.organizationId !== organizationId) throw new DomainError('not_found', SignatureMessages.documentNotFound);
  if (received.mimeType !== 'application/pdf') throw new DomainError('invalid', SignatureMessages.documentNotPdf);
  return received;
}

/**
 * A collection's SIGNATURE items checked against the registry (the document given, found, a PDF)
 * and completed with the document's SHA-256, which every party's evidence names. The caller's
 * items are replaced in place (they were built a moment ago for this collection).
 */
export async function completeSignatureDocuments(app: Pick<AppContext, 'store'>, organizationId: string, items: ItemDefinition[]): Promise<void> {
  for (const item of items) {
    const signature = item.config?.signature;
    if (item.kind !== 'SIGNATURE' || !signature) continue;
    if (!signature.registryDocumentId) throw new DomainError('invalid', SignatureMessages.documentRequired);
    const { sha256 } = await signatureDocument(app, organizationId, signature.registryDocumentId);
    item.config = { ...item.config, signature: { ...signature, documentSha256: sha256 } };
  }
}

/** The bytes of the document to sign, for the recipient page's view and download. */
export async function signatureDocumentFile(app: Pick<AppContext, 'store' | 'db'>, organizationId: string, registryDocumentId: string) {
  const received = await signatureDocument(app, organizationId, registryDocumentId);
  const blob = await new PostgresBlobStore(app.db).get(received.blobId);
  if (!blob) throw new DomainError('not_found', SignatureMessages.documentNotFound);
  return { fileName: received.fileName, bytes: blob.bytes, sha256: received.sha256 };
}
