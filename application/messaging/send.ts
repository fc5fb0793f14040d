import type Logger from 'bunyan';
import { messagingDecider } from '../../domain/messaging/decider.ts';
import { messageStream } from '../../domain/messaging/events.ts';
import { renderMessage } from '../../domain/messaging/templates.ts';
import { handleCommand, loadState } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import type { Channels } from './channels/index.ts';
import { ChannelError } from './channels/port.ts';
import { messagingPersonalData } from './personal-data.ts';
import { markFailed, markRetry, markSent, type ClaimedDelivery } from './delivery-store.ts';

/** One channel's error, or each channel's named when several gave up. */
export function failureText(errors: ReadonlyArray<{ channel: string; error: string }>): string {
  return errors.length === 1 ? errors[0]!.error : errors.map(({ channel, error }) => `${channel}: ${error}`).join('; ');
}

/**
 * One attempt of one claimed row: the message's stream says what to send (and whether it already
 * went, after a crash or a rebuild of the queue); the channel's answer becomes MessageSent, a
 * later retry, or, once every channel gave up, MessageFailed.
 */
export async function sendDelivery(app: AppContext, channels: Channels, delays: readonly number[], delivery: ClaimedDelivery, log: Logger): Promise<void> {
  const { db, store, clock } = app;
  const stream = messageStream(delivery.message_id);
  const { state } = await loadState(store, stream, messagingDecider);
  if (!state.queued || state.sent.includes(delivery.channel)) return markSent(db, delivery);
  if (state.status === 'FAILED') return markFailed(db, delivery, 'já registrada como falha', async () => {});
  const { template, to, content } = state.queued;
  try {
    const { providerMessageId } = await channels[delivery.channel].send({ messageId: delivery.message_id, to, rendered: renderMessage(template, to.name, content), addressee: messagingPersonalData.subjectOf({ ...state.queued }) });
    await handleCommand(store, stream, messagingDecider, { type: 'RecordSent', channel: delivery.channel, providerMessageId, at: clock.now().toISOString() });
    await markSent(db, delivery);
  } catch (error) {
    const failure = error instanceof ChannelError ? error : new ChannelError(error instanceof Error ? error.message : String(error), false);
    const delay = delays[delivery.attempts - 1];
    log.warn({ messageId: delivery.message_id, channel: delivery.channel, attempt: delivery.attempts, error: failure.text, permanent: failure.permanent }, 'message not taken by its channel');
    if (!failure.permanent && delay !== undefined) return markRetry(db, delivery, failure.text, delay);
    await markFailed(db, delivery, failure.text, async (errors) => {
      await handleCommand(store, stream, messagingDecider, { type: 'RecordFailed', error: failureText(errors), at: clock.now().toISOString() });
    });
  }
}
