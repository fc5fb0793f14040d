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

/**
 * Ends one channel's row (`owns` says whether it is still this caller's to end) inside one
 * transaction that holds every row of the message, locked in channel order so two channels ending
 * at once in two processes take turns. `then` gets each channel's outcome when no channel of the
 * message is left pending or sent, else null.
 */
async function endRow(
  db: Knex,
  messageId: string,
  channel: MessageChannel,
  status: EndedStatus,
  error: string,
  owns: (row: { status: string; claim_token: string | null }) => boolean,
  then: (ended: EndedChannel[] | null, trx: Knex.Transaction) => Promise<void>,
): Promise<void> {
  await db.transaction(async (trx) => {
    const rows: Array<{ channel: MessageChannel; status: string; last_error: string | null; claim_token: string | null }> = await trx('messaging_deliveries')
      .where({ message_id: messageId })
      .orderBy('channel')
      .forUpdate();
    const own = rows.find((row) => row.channel === channel);
    if (!own || !owns(own)) return;
    await trx('messaging_deliveries').where({ message_id: messageId, channel }).update({ status, claim_token: null, last_error: error, completed_at: trx.fn.now() });
    const after = rows.map((row) => (row.channel === channel ? { ...row, status, last_error: error } : row));
    const allEnded = after.every((row) => row.status === 'failed' || row.status === 'not_sent');
    await then(allEnded ? after.map((row) => ({ channel: row.channel, status: row.status as EndedStatus, error: row.last_error ?? '' })) : null, trx);
  });
}

/**
 * The channel gave up (`failed`) or could not send at all (`not_sent`). `onAllEnded` runs when no
 * channel of the message is left pending or sent, with each channel's outcome; if it throws, the
 * row stays claimed and is tried again once its lease runs out.
 */
export async function markEnded(
  db: Knex,
  delivery: ClaimedDelivery,
  status: EndedStatus,
  error: string,
  onAllEnded: (ended: EndedChannel[], trx: Knex.Transaction) => Promise<void>,
): Promise<void> {
  await endRow(db, delivery.message_id, delivery.channel, status, error, (row) => row.claim_token === delivery.claim_token, async (ended, trx) => {
    if (ended) await onAllEnded(ended, trx);
  });
}

/**
 * The provider reported a copy it had taken as lost: that channel's row ends failed with its words,
 * and `then` learns whether any channel of the message is still pending or sent (null) or each
 * one's outcome. False when the row was already ended (a repeated report) or is unknown.
 */
export async function markUndelivered(db: Knex, messageId: string, channel: MessageChannel, error: string, then: (ended: EndedChannel[] | null, trx: Knex.Transaction) => Promise<void>): Promise<boolean> {
  let marked = false;
  await endRow(db, messageId, channel, 'failed', error, (row) => row.status === 'sent' || row.status === 'pending', async (ended, trx) => {
    marked = true;
    await then(ended, trx);
  });
  return marked;
}
