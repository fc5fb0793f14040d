import { messagingDecider } from '../../domain/messaging/decider.ts';
import { messageStream, type MessageChannel } from '../../domain/messaging/events.ts';
import { loadState } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { markLost } from './delivery-store.ts';
import { channelEnded } from './send-commands.ts';

/**
 * A provider took the message on `channel`, then reported its copy lost: WhatsApp's `failed`
 * status and Twilio's `undelivered` and `failed` callbacks all come here. The channel's row ends
 * failed with the provider's words and MessageChannelFailed is recorded; the next channel of
 * MESSAGE_CHANNEL_ORDER takes over when the message has one, else, with no other channel standing,
 * the message is FAILED (collection.message.failed). A report about a channel that reached the
 * person, had already given up, or of a message that already ended changes nothing. Returns the
 * events recorded (repeats record none).
 */
export async function recordChannelLost(app: Pick<AppContext, 'db' | 'store' | 'clock'>, messageId: string, channel: MessageChannel, error: string): Promise<number> {
  const { state } = await loadState(app.store, messageStream(messageId), messagingDecider);
  if (!state.queued || state.delivered.includes(channel) || state.failed.includes(channel) || state.status === 'FAILED' || state.status === 'NOT_SENT') return 0;
  let recorded = 0;
  await markLost(app.db, messageId, channel, error, async (rows, trx) => {
    recorded = await channelEnded(app, messageId, channel, error, rows, trx, true);
  });
  return recorded;
}
