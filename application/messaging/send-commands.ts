import type Logger from 'bunyan';
import type { Knex } from 'knex';
import { messagingDecider } from '../../domain/messaging/decider.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { messageStream } from '../../domain/messaging/events.ts';
import { renderMessage } from '../../domain/messaging/templates.ts';
import { handleCommand, loadState } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import type { Channels } from './channels/index.ts';
import { smsText } from '../../domain/messaging/sms-text.ts';
import { ChannelError } from './channels/port.ts';
import { messagingPersonalData } from './personal-data.ts';
import type { MessageChannel } from '../../domain/messaging/events.ts';
import { addFallbackRow, markEnded, markRetry, markSent, type ClaimedDelivery, type DeliveryRows, type EndedChannel, type EndedStatus } from './delivery-store.ts';

/** One channel's error, or each channel's named when several gave up. */
export function failureText(errors: ReadonlyArray<{ channel: string; error: string }>): string {
  return errors.length === 1 ? errors[0]!.error : errors.map(({ channel, error }) => `${channel}: ${error}`).join('; ');
}

/**
 * One attempt of one claimed row: the message's stream says what to send (and whether it already
 * went, after a crash or a rebuild of the queue); the channel's answer becomes MessageSent, a
 * later retry, or, once every channel ended without it leaving, MessageNotSent (no channel could
 * send it at all) or MessageFailed (a channel gave up).
 */
export async function sendDelivery(app: AppContext, channels: Channels, delays: readonly number[], delivery: ClaimedDelivery, log: Logger): Promise<void> {
  const { db, store, clock } = app;
  const stream = messageStream(delivery.message_id);
  const { state } = await loadState(store, stream, messagingDecider);
  if (!state.queued || state.sent.includes(delivery.channel)) return markSent(db, delivery);
  if (state.status === 'FAILED' || state.status === 'NOT_SENT') return markEnded(db, delivery, 'failed', 'já encerrada sem envio', async () => {});
  const { template, to, content } = state.queued;
  const end = (status: EndedStatus, text: string) => markEnded(db, delivery, status, text, (rows, trx) => channelEnded(app, delivery.message_id, delivery.channel, text, rows, trx));
  // It gave up already and the next channel's row was not written (a crash in between): write it now.
  if (state.failed.includes(delivery.channel)) return end('failed', MessagingMessages.channelGaveUp);
  try {
    const outcome = await channels[delivery.channel].send({
      messageId: delivery.message_id,
      to,
      template,
      content,
      rendered: renderMessage(template, to.name, content),
      short: smsText(template, content),
      addressee: messagingPersonalData.subjectOf({ ...state.queued }),
    });
    if ('notSent' in outcome) {
      log.info({ messageId: delivery.message_id, channel: delivery.channel, reason: outcome.notSent }, 'message not sent: no real channel');
      return await end('not_sent', outcome.notSent);
    }
    await handleCommand(store, stream, messagingDecider, {
      type: 'RecordSent',
      channel: delivery.channel,
      providerMessageId: outcome.providerMessageId,
      provider: channels[delivery.channel].provider,
      at: clock.now().toISOString(),
    });
    await markSent(db, delivery);
  } catch (error) {
    const failure = error instanceof ChannelError ? error : new ChannelError(error instanceof Error ? error.message : String(error), false);
    const delay = delays[delivery.attempts - 1];
    log.warn({ messageId: delivery.message_id, channel: delivery.channel, attempt: delivery.attempts, error: failure.text, permanent: failure.permanent }, 'message not taken by its channel');
    if (!failure.permanent && delay !== undefined) return markRetry(db, delivery, failure.text, delay);
    await end('failed', failure.text);
  }
}

/**
 * A channel of the message ended without it arriving, inside the lock on the message's rows: it
 * gave up or could not send, or (`lost`) its provider took it and then reported the copy lost
 * (application/messaging/channel-lost.ts). When another channel takes over from it, or it had
 * taken the message, MessageChannelFailed says so and the next channel's row is written (due
 * now). Once every channel ended, the message's outcome. Returns the events recorded.
 */
export async function channelEnded(
  app: Pick<AppContext, 'store' | 'clock'>,
  messageId: string,
  channel: MessageChannel,
  error: string,
  rows: DeliveryRows,
  trx: Knex.Transaction,
  lost = false,
): Promise<number> {
  const { store, clock } = app;
  const stream = messageStream(messageId);
  const { state } = await loadState(store, stream, messagingDecider);
  const next = state.queued?.fallback?.[channel];
  if (!state.queued) return 0;
  let recorded = 0;
  // A lost copy is always recorded, even when its report outran MessageSent: that keeps a late RecordSent from reviving the channel.
  if (next || lost || state.sent.includes(channel)) {
    recorded += (await handleCommand(store, stream, messagingDecider, { type: 'RecordChannelFailed', channel, error, at: clock.now().toISOString() })).events.length;
    if (next && !rows.has(next)) {
      // Due now: the dispatcher claims it on its next pass (it looks again as each attempt ends).
      await addFallbackRow(trx, messageId, state.queued.organizationId, next);
      return recorded;
    }
  }
  // Each channel's words in the order they were tried.
  const ended = rows.allEnded()?.sort((a, b) => state.queued!.channels.indexOf(a.channel) - state.queued!.channels.indexOf(b.channel));
  if (ended) recorded += (await handleCommand(store, stream, messagingDecider, { ...(await outcomeOf(ended, trx, messageId)), at: clock.now().toISOString() })).events.length;
  return recorded;
}

/**
 * Every channel ended and none sent: NOT_SENT when none of them could send at all (marked sandbox
 * when the local outbox kept a copy), else FAILED with each channel's words.
 */
async function outcomeOf(ended: readonly EndedChannel[], trx: Knex.Transaction, messageId: string) {
  const texts = ended.map(({ channel, error }) => ({ channel, error }));
  if (ended.some((row) => row.status === 'failed')) return { type: 'RecordFailed' as const, error: failureText(texts) };
  const kept = await trx('messaging_outbox').where({ message_id: messageId }).first('message_id');
  return { type: 'RecordNotSent' as const, reason: failureText(texts), sandbox: kept !== undefined };
}
