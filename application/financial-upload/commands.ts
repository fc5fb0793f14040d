import { createHash } from 'node:crypto';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { objectStoreFor, ObjectStoreError, type ObjectStore } from '../object-store.ts';
import { reportDecider } from '../../domain/report/decider.ts';
import { reportStream } from '../../domain/report/events.ts';
import type { FinancialStatementsSubmitted, SubmittedFinancialFile } from '../../domain/report/financial-events.ts';
import { FinancialUploadMessages as M } from '../../domain/financial-upload/messages.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { FinancialUploadLimits } from './keys.ts';

/** The report exists and is the caller's: checked before any URL or file handling (spec). */
export async function assertCallersReport(app: AppContext, organizationId: string, reportId: string): Promise<void> {
  const [first] = await app.store.readStream(reportStream(reportId), { maxCount: 1 });
  if (!first || first.data.organizationId !== organizationId) throw new DomainError('not_found', M.reportNotFound);
}

/** A store failure is ours, not the caller's: 502, never a 500 or a misleading 400. */
export async function storage<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof ObjectStoreError) throw new DomainError('upstream', M.storageUnavailable);
    throw error;
  }
}

// A readable PDF ends with %%EOF within its last 1024 bytes (PDF 32000-1, 7.5.5; readers look there too).
const EOF_WINDOW = 1024;
const looksComplete = (bytes: Buffer) => bytes.subarray(Math.max(0, bytes.length - EOF_WINDOW)).includes('%%EOF');

/**
 * The checks of complete, for one stored file, in the spec's order: present, at most 50 MB, not
 * empty, begins with %PDF-, and readable to its end. A rejected file is deleted from the store
 * (the client must upload it again from presign). The size is read first, so nothing larger than
 * the limit is ever loaded.
 */
export async function checkStoredFile(store: ObjectStore, key: string): Promise<{ sizeBytes: number; sha256: string }> {
  const head = await storage(() => store.head(key));
  if (!head) throw new DomainError('invalid', M.notInStorage);
  const reject = async (message: string): Promise<never> => {
    await storage(() => store.delete([key]));
    throw new DomainError('invalid', message);
  };
  if (head.sizeBytes > FinancialUploadLimits.maxBytes) return reject(M.tooLarge);
  if (head.sizeBytes === 0) return reject(M.emptyOrCorrupted);
  const bytes = await storage(() => store.get(key));
  if (!bytes) throw new DomainError('invalid', M.notInStorage);
  if (!bytes.subarray(0, 5).equals(Buffer.from('%PDF-'))) return reject(M.onlyValidPdf);
  if (!looksComplete(bytes)) return reject(M.emptyOrCorrupted);
  return { sizeBytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

export interface CandidateFile {
  key: string;
  blobId: string;
  fileName: string;
}

/**
 * Check every file in order and, only when all pass, record the batch as one
 * FinancialStatementsSubmitted. The first failure stops the call: nothing is recorded (files
 * checked before it count for nothing: they stay stored and may be sent again), and the failed
 * file is deleted. Files are checked one after another so that at most one is in memory.
 */
export async function submitBatch(app: AppContext, principal: Principal, reportId: string, candidates: readonly CandidateFile[], via: FinancialStatementsSubmitted['data']['via']) {
  const store = objectStoreFor(app.config);
  const files: SubmittedFinancialFile[] = [];
  for (const candidate of candidates) files.push({ ...candidate, ...(await checkStoredFile(store, candidate.key)) });
  return handleCommand(app.store, reportStream(reportId), reportDecider, {
    type: 'SubmitFinancialStatements',
    organizationId: principal.organizationId,
    userId: principal.userId,
    batchId: app.ids.objectId(),
    files,
    via,
    at: app.clock.now().toISOString(),
  });
}
