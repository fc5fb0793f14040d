import type { Knex } from 'knex';
import type { Config } from '../../config/index.ts';
import { CollectionMessages } from '../../domain/collection/messages.ts';
import type { CollectionState } from '../../domain/collection/state.ts';
import { DomainError } from '../../domain/shared/errors.ts';

const DAY_MS = 86_400_000;
const retryAfter = (ms: number) => ({ 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) });

/** What one recipient may send one item in 24 hours, counted from the collection itself. */
export type PerDayCap = (config: Config, state: CollectionState, recipientId: string, itemId: string, now: Date) => void;

/** At most `limit` of `times` in the last 24 hours: 429 with Retry-After until the oldest of them leaves the window. */
function capPerDay(times: readonly string[], limit: number, message: string, now: Date): void {
  const since = now.getTime() - DAY_MS;
  const sent = times
    .map((at) => Date.parse(at))
    .filter((at) => at > since)
    .sort((a, b) => a - b);
  if (sent.length < limit) return;
  const frees = sent[sent.length - limit]! + DAY_MS;
  throw new DomainError('too_many', message, undefined, retryAfter(frees - now.getTime()));
}

/** At most RECIPIENT_FILES_PER_ITEM_PER_DAY files from one recipient to one item (each file's submittedAt). */
export const checkFilesPerItem: PerDayCap = (config, state, recipientId, itemId, now) => {
  const files = state.items.find((i) => i.itemId === itemId)?.files ?? [];
  capPerDay(
    files.filter((f) => f.recipientId === recipientId).map((f) => f.submittedAt),
    config.RECIPIENT_FILES_PER_ITEM_PER_DAY,
    CollectionMessages.filesPerItemPerDay,
    now,
  );
};

/**
 * At most RECIPIENT_IDENTITY_CHECKS_PER_ITEM_PER_DAY identity checks started by one recipient on
 * one item (each check's startedAt): each is a paid call to the provider, and a REJECTED item may
 * be tried again.
 */
export const checkIdentityChecksPerItem: PerDayCap = (config, state, recipientId, itemId, now) => {
  const started = state.items.find((i) => i.itemId === itemId)?.details.identity?.started ?? [];
  capPerDay(
    started.filter((s) => s.recipientId === recipientId).map((s) => s.startedAt),
    config.RECIPIENT_IDENTITY_CHECKS_PER_ITEM_PER_DAY,
    CollectionMessages.identityChecksPerDay,
    now,
  );
};

/**
 * Reserves an upload's bytes against its recipient link's RECIPIENT_UPLOAD_BYTES_PER_DAY (24-hour
 * windows in identity_rate_limits, shared by every process), before the body is read: `bytes` is
 * what the request declares (its Content-Length), and a refused file counts as much as a kept one,
 * since it was received all the same. One conditional statement adds the bytes only while the
 * window has room for them, so two uploads sent at once cannot both take the last of it (a read
 * then an increment would let both pass). Past the limit: 429 with Retry-After until the window
 * ends, and nothing is counted.
 */
export async function countUploadBytes(app: { db: Knex; config: Config }, collectionId: string, recipientId: string, bytes: number): Promise<void> {
  const limit = app.config.RECIPIENT_UPLOAD_BYTES_PER_DAY;
  const key = `link-upload-bytes:${collectionId}:${recipientId}`;
  const now = Date.now();
  // A body larger than a whole day's allowance waits a whole window.
  if (bytes > limit) throw new DomainError('too_many', CollectionMessages.uploadBytesPerDay, undefined, retryAfter(DAY_MS));
  const reserved = await app.db.raw(
    `insert into identity_rate_limits as r (key, points, expire) values (?, ?, ?)
     on conflict (key) do update set
       points = case when r.expire <= ? then excluded.points else r.points + excluded.points end,
       expire = case when r.expire <= ? then excluded.expire else r.expire end
     where r.expire <= ? or r.points::bigint + excluded.points <= ?
     returning r.points`,
    [key, bytes, now + DAY_MS, now, now, now, limit],
  );
  if (reserved.rows.length > 0) return;
  const window = await app.db('identity_rate_limits').where({ key }).first('expire');
  throw new DomainError('too_many', CollectionMessages.uploadBytesPerDay, undefined, retryAfter(window ? Number(window.expire) - now : DAY_MS));
}
