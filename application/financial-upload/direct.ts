import type { AppContext } from '../context.ts';
import { objectStoreFor } from '../object-store.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { FinancialUploadMessages as M } from '../../domain/financial-upload/messages.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { submitBatch } from './commands.ts';
import { financialKey, FinancialUploadLimits, parseFinancialKey } from './keys.ts';
import { signedUploadUrl } from './upload-url.ts';

export interface PresignedUpload {
  key: string;
  uploadUrl: string;
  expiresInSeconds: number;
}

/**
 * Step 1 of the direct upload: one fresh key per file, in order, each with a URL valid for 15
 * minutes that accepts exactly the declared size as application/pdf. With the local store the URL
 * is the service's own PUT /uploads/<key>; with S3 it is the bucket's presigned PUT.
 */
export async function presignUploads(app: AppContext, principal: Principal, reportId: string, files: ReadonlyArray<{ name: string; size: number }>): Promise<PresignedUpload[]> {
  const store = objectStoreFor(app.config);
  const now = app.clock.now();
  const expiresInSeconds = FinancialUploadLimits.urlTtlSeconds;
  const expiresAt = new Date(now.getTime() + expiresInSeconds * 1000);
  const contentType = FinancialUploadLimits.contentType;
  const slots = files.map((file) => ({
    key: financialKey(principal.organizationId, reportId, app.ids.objectId()),
    organization_id: principal.organizationId,
    report_id: reportId,
    file_name: file.name,
    size_bytes: file.size,
    expires_at: expiresAt,
    created_at: now,
  }));
  await app.db('financial_upload_slots').insert(slots);
  return slots.map((slot) => ({
    key: slot.key,
    uploadUrl: store.presignPut(slot.key, { contentType, sizeBytes: slot.size_bytes, expiresInSeconds, now }) ?? signedUploadUrl(app.config, slot.key, slot.size_bytes, contentType, expiresAt),
    expiresInSeconds,
  }));
}

/**
 * Step 3: the keys must be ones presign issued for this report (`Key de upload inválida.`
 * otherwise, checked for every key before any file is touched), then each stored file passes the
 * checks and the batch is recorded once. A key given twice counts once.
 */
export async function completeUploads(app: AppContext, principal: Principal, reportId: string, keys: readonly string[]) {
  const unique = [...new Set(keys)];
  const issued = unique.every((key) => {
    const parsed = parseFinancialKey(key);
    return parsed?.organizationId === principal.organizationId && parsed.reportId === reportId;
  });
  const slots: Array<{ key: string; file_name: string }> = issued
    ? await app.db('financial_upload_slots').whereIn('key', unique).andWhere({ organization_id: principal.organizationId, report_id: reportId }).select('key', 'file_name')
    : [];
  const nameOf = new Map(slots.map((slot) => [slot.key, slot.file_name]));
  if (!issued || nameOf.size !== unique.length) throw new DomainError('invalid', M.invalidKey);
  const candidates = unique.map((key) => ({ key, blobId: parseFinancialKey(key)!.blobId, fileName: nameOf.get(key)! }));
  return submitBatch(app, principal, reportId, candidates, 'PRESIGNED');
}
