import type { Knex } from 'knex';
import type { CollectionState } from '../../../domain/collection/state.ts';

const DAY_MS = 86_400_000;

/**
 * When the next reminder after `after` is due: the first reminder day whose moment is later than
 * `after` and earlier than the deadline (a reminder at or after expiry would point at a dead link).
 */
export function nextReminderAt(sentAt: string, expiresAt: string, reminderDays: readonly number[], after: number): Date | null {
  const moments = [...reminderDays].sort((a, b) => a - b).map((day) => Date.parse(sentAt) + day * DAY_MS);
  const next = moments.find((moment) => moment > after && moment < Date.parse(expiresAt));
  return next === undefined ? null : new Date(next);
}

/** The latest reminder day already due at `now` (missed days are not sent one after another). */
export function dueReminderDay(sentAt: string, reminderDays: readonly number[], now: number): number | null {
  const due = reminderDays.filter((day) => Date.parse(sentAt) + day * DAY_MS <= now);
  return due.length ? Math.max(...due) : null;
}

/** A sent collection enters the schedule: its first reminder and its deadline. */
export async function schedule(db: Knex, state: CollectionState): Promise<void> {
  if (!state.collectionId || !state.organizationId || !state.sentAt || !state.expiresAt) return;
  const row = {
    collection_id: state.collectionId,
    organization_id: state.organizationId,
    sent_at: state.sentAt,
    expires_at: state.expiresAt,
    reminder_days: JSON.stringify(state.reminderDays),
    next_reminder_at: nextReminderAt(state.sentAt, state.expiresAt, state.reminderDays, Date.parse(state.sentAt)),
  };
  // A replayed CollectionSent leaves the reminders already passed where they are.
  await db('messaging_collection_schedule').insert(row).onConflict('collection_id').ignore();
}

export async function unschedule(db: Knex, collectionId: string): Promise<void> {
  await db('messaging_collection_schedule').where({ collection_id: collectionId }).delete();
}

export interface ScheduleRow {
  collection_id: string;
  organization_id: string;
  sent_at: Date;
  expires_at: Date;
  reminder_days: number[];
  next_reminder_at: Date | null;
}

export function remindersDue(db: Knex, now: Date, limit: number): Promise<ScheduleRow[]> {
  return db('messaging_collection_schedule').where('next_reminder_at', '<=', now).orderBy('next_reminder_at').limit(limit);
}

export function deadlinesPassed(db: Knex, now: Date, limit: number): Promise<ScheduleRow[]> {
  return db('messaging_collection_schedule').where('expires_at', '<=', now).orderBy('expires_at').limit(limit);
}

export async function advanceReminder(db: Knex, row: ScheduleRow, now: Date): Promise<void> {
  const next = nextReminderAt(row.sent_at.toISOString(), row.expires_at.toISOString(), row.reminder_days, now.getTime());
  await db('messaging_collection_schedule').where({ collection_id: row.collection_id }).update({ next_reminder_at: next });
}
