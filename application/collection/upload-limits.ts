import type { Knex } from 'knex';
import { RateLimiterRes, type RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Config } from '../../config/index.ts';
import { CollectionMessages } from '../../domain/collection/messages.ts';
import type { CollectionState } from '../../domain/collection/state.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { sharedLimiter, tooMany } from '../identity/limits.ts';

const DAY_MS = 86_400_000;
const retryAfter = (ms: number) => ({ 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) });

/**
 * At most RECIPIENT_FILES_PER_ITEM_PER_DAY files from one recipient to one item in the last 24
 * hours, counted from the collection itself (each file's submittedAt): 429 with Retry-After until
 * the oldest of them leaves the window.
 */
export function checkFilesPerItem(config: Config, state: CollectionState, recipientId: string, itemId: string, now: Date): void {
  const since = now.getTime() - DAY_MS;
  const sent = (state.items.find((i) => i.itemId === itemId)?.files ?? [])
    .filter((f) => f.recipientId === recipientId)
    .map((f) => Date.parse(f.submittedAt))
    .filter((at) => at > since)
    .sort((a, b) => a - b);
  if (sent.length < config.RECIPIENT_FILES_PER_ITEM_PER_DAY) return;
  const frees = sent[sent.length - config.RECIPIENT_FILES_PER_ITEM_PER_DAY]! + DAY_MS;
  throw new DomainError('too_many', CollectionMessages.filesPerItemPerDay, undefined, retryAfter(frees - now.getTime()));
}

const byteLimits = new WeakMap<Knex, RateLimiterPostgres>();

/**
 * Counts an upload's bytes against its recipient link's RECIPIENT_UPLOAD_BYTES_PER_DAY (24-hour
 * windows, shared by every process), before the body is read: `bytes` is what the request declares
 * (its Content-Length), and a refused file counts as much as a kept one, since it was received all
 * the same. Past the limit: 429 with Retry-After until the window ends, and nothing is counted.
 */
export async function countUploadBytes(app: { db: Knex; config: Config }, collectionId: string, recipientId: string, bytes: number): Promise<void> {
  let limiter = byteLimits.get(app.db);
  if (!limiter) byteLimits.set(app.db, (limiter = sharedLimiter(app.db, 'link-upload-bytes', app.config.RECIPIENT_UPLOAD_BYTES_PER_DAY, DAY_MS / 1000)));
  const key = `${collectionId}:${recipientId}`;
  const counted = await limiter.get(key);
  // Refused here rather than by consume, which would count the refused bytes too. A body larger
  // than a whole day's allowance waits a whole window.
  if ((counted?.consumedPoints ?? 0) + bytes > limiter.points) {
    throw new DomainError('too_many', CollectionMessages.uploadBytesPerDay, undefined, retryAfter(counted?.msBeforeNext ?? DAY_MS));
  }
  await limiter.consume(key, bytes).catch((refusal: unknown) => {
    throw refusal instanceof RateLimiterRes ? tooMany(CollectionMessages.uploadBytesPerDay, refusal) : refusal;
  });
}
