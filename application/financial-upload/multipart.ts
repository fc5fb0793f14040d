import { createReadStream } from 'node:fs';
import type { AppContext } from '../context.ts';
import { objectStoreFor } from '../object-store.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { fileProblems } from '../../domain/financial-upload/rules.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { storage, submitBatch } from './commands.ts';
import { financialKey, FinancialUploadLimits } from './keys.ts';

/** A file of the multipart body, still on disk where the HTTP layer received it. */
export interface ReceivedPdf {
  fileName: string;
  path: string;
  sizeBytes: number;
}

/**
 * The single-call upload (POST /report/{id}/financial-tab): the same name and size rules as
 * presign, then each file is streamed from disk into the object store under a fresh key and the
 * batch goes through the same checks as complete. All or nothing: when a file fails, every file
 * this call stored is deleted again and nothing is recorded.
 */
export async function uploadMultipart(app: AppContext, principal: Principal, reportId: string, received: readonly ReceivedPdf[]) {
  // An empty file is complete's check to name (`Arquivo vazio ou corrompido.`).
  const problems = fileProblems(received.map((file) => ({ name: file.fileName, size: file.sizeBytes })));
  if (problems.length) throw new DomainError('invalid', problems.join(','));
  const store = objectStoreFor(app.config);
  const candidates = received.map((file) => {
    const blobId = app.ids.objectId();
    return { key: financialKey(principal.organizationId, reportId, blobId), blobId, fileName: file.fileName };
  });
  try {
    for (const [i, file] of received.entries()) {
      await storage(() => store.put(candidates[i]!.key, createReadStream(file.path), FinancialUploadLimits.contentType, { expectedBytes: file.sizeBytes, maxBytes: FinancialUploadLimits.maxBytes }));
    }
    return await submitBatch(app, principal, reportId, candidates, 'MULTIPART');
  } catch (error) {
    await storage(() => store.delete(candidates.map((c) => c.key)));
    throw error;
  }
}
