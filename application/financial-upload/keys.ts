import { FINANCIAL_MAX_BYTES, FINANCIAL_MAX_FILES } from '../../domain/financial-upload/rules.ts';

/** Limits of the contract (Limits: PDF size, files per batch, upload URL validity). */
export const FinancialUploadLimits = {
  maxBytes: FINANCIAL_MAX_BYTES,
  maxFiles: FINANCIAL_MAX_FILES,
  urlTtlSeconds: 900,
  contentType: 'application/pdf',
} as const;

const KEY = /^financial\/([0-9a-f]{24})\/([0-9a-f]{24})\/([0-9a-f]{24})\.pdf$/;

/**
 * Where an uploaded statement lives in the object store. The organization and report in the key
 * make a key of another report (or organization) recognisable without a lookup, and the blob id
 * (a fresh ObjectId) makes every upload a new object: a retried presign never overwrites one.
 */
export const financialKey = (organizationId: string, reportId: string, blobId: string) => `financial/${organizationId}/${reportId}/${blobId}.pdf`;

export function parseFinancialKey(key: string): { organizationId: string; reportId: string; blobId: string } | null {
  const match = KEY.exec(key);
  return match ? { organizationId: match[1]!, reportId: match[2]!, blobId: match[3]! } : null;
}
