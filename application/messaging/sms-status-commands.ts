import type Logger from 'bunyan';
import twilio from 'twilio';
import { messagingDecider } from '../../domain/messaging/decider.ts';
import { messageStream } from '../../domain/messaging/events.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { recordChannelLost } from './channel-lost.ts';

/**
 * X-Twilio-Signature: base64 HMAC-SHA1, keyed with the auth token, of the URL followed by each POST
 * parameter's name and value, sorted by name (the twilio package's validateRequest, which
 * compares in constant time).
 */
export function validSmsSignature(authToken: string, url: string, params: Record<string, string>, header: string | undefined): boolean {
  return header !== undefined && twilio.validateRequest(authToken, header, url, params);
}

/** What Twilio says it did with the message, as `MessageStatus`. */
const UNDELIVERED = new Set(['undelivered', 'failed']);

/** The operator's text for an SMS that did not arrive: the status and Twilio's error code (its docs name each: twilio.com/docs/api/errors/<code>). */
function undeliveredText(status: string, errorCode: string | undefined): string {
  const what = status === 'failed' ? 'Twilio: o SMS não pôde ser enviado' : 'Twilio: o SMS não foi entregue';
  return /^\d{1,6}$/.test(errorCode ?? '') ? `${what} (código ${errorCode})` : `${what}.`;
}

/**
 * One signed status callback of an SMS: `delivered` records the message DELIVERED on SMS (`read`,
 * RCS, its read receipt too); `undelivered` and `failed` are the copy lost after it left, on the
 * path WhatsApp's `failed` takes (recordChannelLost): the next channel of the message takes over,
 * or, with none left and no other channel standing, the message is FAILED
 * (collection.message.failed). `accepted`, `queued`, `sending` and `sent` add nothing: SENT was
 * recorded when the API took it. Returns the message events recorded now; a status of a message
 * without the SMS channel, or an unknown one, is ignored (logged).
 */
export async function recordSmsStatus(app: AppContext, messageId: string, params: Record<string, string>, log: Logger): Promise<number> {
  const status = params.MessageStatus ?? '';
  try {
    if (status === 'delivered' || status === 'read') {
      const { events } = await handleCommand(app.store, messageStream(messageId), messagingDecider, {
        type: status === 'read' ? 'RecordRead' : 'RecordDelivered',
        channel: 'SMS',
        at: app.clock.now().toISOString(),
      });
      return events.length;
    }
    if (UNDELIVERED.has(status)) return await recordChannelLost(app, messageId, 'SMS', undeliveredText(status, params.ErrorCode));
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    log.info({ messageId, providerMessageId: params.MessageSid, refusal: error.message }, 'SMS status for no message of ours');
  }
  return 0;
}
