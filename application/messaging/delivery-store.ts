import type { Knex } from 'knex';
import type { MessageChannel } from '../../domain/messaging/events.ts';

export interface ClaimedDelivery {
  message_id: string;
  channel: MessageChannel;
  organization_id: string;
  /** Attempts begun, this one included. */
  attempts: number;
  claim_token: string;
}

/**
 * Claim due rows. SKIP LOCKED lets any number of dispatcher processes claim side by side; the
 * claim is a lease (next_attempt_at pushed past the longest attempt, a fresh claim token), so no
 * connection is held while sending and a dispatcher that dies mid-send leaves its rows due again.
 */
export async function claimDue(db: Knex, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const result = await db.raw(
    `with due as (
       select message_id, channel from messaging_deliveries
        where status = 'pending' and next_attempt_at <= now()
        order by next_attempt_at
        limit ?
          for update skip locked
     )
     update messaging_deliveries d
        set next_attempt_at = now() + ? * interval '1 millisecond', claim_token = gen_random_uuid(), attempts = d.attempts + 1
       from due
      where d.message_id = due.message_id and d.channel = due.channel
     returning d.message_id, d.channel, d.organization_id, d.attempts, d.claim_token`,
    [limit, leaseMs],
  );
  return result.rows as ClaimedDelivery[];
}

const claimed = (delivery: ClaimedDelivery) => ({ message_id: delivery.message_id, channel: delivery.channel, claim_token: delivery.claim_token });

/** The channel took it (or had already: the stream said so). */
export async function markSent(db: Knex, delivery: ClaimedDelivery): Promise<void> {
  await db('messaging_deliveries').where(claimed(delivery)).update({ status: 'sent', claim_token: null, last_error: null, completed_at: db.fn.now() });
}

/** A passing failure: due again after `delayMs`. */
export async function markRetry(db: Knex, delivery: ClaimedDelivery, error: string, delayMs: number): Promise<void> {
  await db('messaging_deliveries')
    .where(claimed(delivery))
    .update({ status: 'pending', claim_token: null, last_error: error, next_attempt_at: db.raw(`now() + ? * interval '1 millisecond'`, [delayMs]) });
}

/** How a channel's row ends without the message leaving: it gave up, or nothing real could send it. */
export type EndedStatus = 'failed' | 'not_sent';

export interface EndedChannel {
  channel: MessageChannel;
  status: EndedStatus;
  error: string;
}

type DeliveryRow = { channel: MessageChannel; status: string; last_error: string | null; claim_token: string | null };

/**
 * The channel's row ends, if `owns` says it is still the caller's to end, inside one transaction
 * that holds every row of the message, locked in channel order so two channels ending at once in
 * two processes take turns; `onEnded` sees every row of the message, inside the lock.
 */
async function endRow(
  db: Knex,
  messageId: string,
  channel: MessageChannel,
  owns: (row: DeliveryRow) => boolean,
  status: EndedStatus,
  error: string,
  onEnded: (rows: DeliveryRows, trx: Knex.Transaction) => Promise<unknown>,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const rows: DeliveryRow[] = await trx('messaging_deliveries').where({ message_id: messageId }).orderBy('channel').forUpdate();
    const own = rows.find((row) => row.channel === channel);
    if (!own || !owns(own)) return false;
    await trx('messaging_deliveries').where({ message_id: messageId, channel }).update({ status, claim_token: null, last_error: error, completed_at: trx.fn.now() });
    const after = rows.map((row) => (row.channel === channel ? { ...row, status, last_error: error } : row));
    await onEnded(new DeliveryRows(after), trx);
    return true;
  });
}

/** The rows of one message after a channel ended. */
export class DeliveryRows {
  constructor(private readonly rows: ReadonlyArray<Pick<DeliveryRow, 'channel' | 'status' | 'last_error'>>) {}

  has(channel: MessageChannel): boolean {
    return this.rows.some((row) => row.channel === channel);
  }

  /** Each channel's outcome when no channel of the message is left pending or sent; else null. */
  allEnded(): EndedChannel[] | null {
    if (!this.rows.every((row) => row.status === 'failed' || row.status === 'not_sent')) return null;
    return this.rows.map((row) => ({ channel: row.channel, status: row.status as EndedStatus, error: row.last_error ?? '' }));
  }
}

/**
 * The channel gave up (`failed`) or could not send at all (`not_sent`). `onEnded` runs with the
 * message's rows (a fallback channel's row is added there, or the outcome recorded once all
 * ended); if it throws, the row stays claimed and is tried again once its lease runs out.
 */
export async function markEnded(db: Knex, delivery: ClaimedDelivery, status: EndedStatus, error: string, onEnded: (rows: DeliveryRows, trx: Knex.Transaction) => Promise<unknown>): Promise<void> {
  await endRow(db, delivery.message_id, delivery.channel, (row) => row.claim_token === delivery.claim_token, status, error, onEnded);
}

/**
 * The provider of a channel that took the message reports, later, that its copy was lost (WhatsApp's
 * `failed`, Twilio's `undelivered` or `failed`): the row ends `failed` with its words, as markEnded.
 * A `pending` row counts too: the report outran the dispatcher (its call timed out though the
 * provider took the message), which must not send it again. False when the row had already ended
 * (a repeated report) or the message has no row for the channel.
 */
export async function markLost(db: Knex, messageId: string, channel: MessageChannel, error: string, onEnded: (rows: DeliveryRows, trx: Knex.Transaction) => Promise<unknown>): Promise<boolean> {
  return endRow(db, messageId, channel, (row) => row.status === 'sent' || row.status === 'pending', 'failed', error, onEnded);
}

/** The row of the channel taking over from one that gave up: due now (a repeat adds nothing). */
export async function addFallbackRow(trx: Knex.Transaction, messageId: string, organizationId: string, channel: MessageChannel): Promise<void> {
  await trx('messaging_deliveries')
    .insert({ message_id: messageId, channel, organization_id: organizationId, status: 'pending', next_attempt_at: trx.fn.now(), created_at: trx.fn.now() })
    .onConflict(['message_id', 'channel'])
    .ignore();
}
