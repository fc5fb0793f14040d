import type Logger from 'bunyan';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { messagingDecider, type MessagingCommand, type MessagingEvent } from '../../domain/messaging/decider.ts';
import { messageStream } from '../../domain/messaging/events.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { recordChannelLost } from './channel-lost.ts';
import { recordInbound, whatsAppContact } from './whatsapp-window.ts';
import { WHATSAPP_CLOUD_API } from './channels/whatsapp.ts';

/** X-Hub-Signature-256 of a Cloud API callback: `sha256=` + hex HMAC-SHA256(app secret, the raw body). */
export function whatsAppSignature(appSecret: string, rawBody: string | Buffer): string {
  return `sha256=${createHmac('sha256', appSecret)
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex')}`;
}

/** Compared in constant time over the exact bytes received, before anything parses them. */
export function validWhatsAppSignature(appSecret: string, rawBody: string | Buffer, header: string | undefined): boolean {
  const expected = Buffer.from(whatsAppSignature(appSecret, rawBody));
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

interface CloudApiStatus {
  id?: unknown;
  status?: unknown;
  timestamp?: unknown;
  recipient_id?: unknown;
  biz_opaque_callback_data?: unknown;
  errors?: Array<{ code?: unknown; title?: unknown; message?: unknown; error_data?: { details?: unknown } }>;
}

interface CloudApiInbound {
  from?: unknown;
  timestamp?: unknown;
}

interface CloudApiValue {
  metadata?: { phone_number_id?: unknown };
  statuses?: unknown;
  messages?: unknown;
}

const objectsIn = <T>(value: unknown): T[] => (Array.isArray(value) ? value.filter((item): item is T => !!item && typeof item === 'object') : []);

/**
 * The `value` of each `messages` change (`entry[].changes[]`) about our own sender number: a Meta
 * app may serve other numbers (another deployment, another business), whose statuses and
 * customers are none of ours.
 */
function valuesFor(payload: unknown, phoneNumberId: string | undefined): CloudApiValue[] {
  if (!phoneNumberId) return [];
  return objectsIn<{ changes?: unknown }>((payload as { entry?: unknown } | null)?.entry)
    .flatMap((entry) => objectsIn<{ field?: unknown; value?: unknown }>(entry.changes))
    .filter((change) => change.field === 'messages' && !!change.value && typeof change.value === 'object')
    .map((change) => change.value as CloudApiValue)
    .filter((value) => value.metadata?.phone_number_id === phoneNumberId);
}

/** The provider's time (Unix seconds), else now; never later than now, so a callback cannot keep a window open ahead. */
function timeOf(timestamp: unknown, now: Date): Date {
  const at = typeof timestamp === 'string' && /^\d{1,12}$/.test(timestamp) ? new Date(Number(timestamp) * 1000) : now;
  return at.getTime() > now.getTime() ? now : at;
}

/** A `failed` status's reason as the operator reads it, like a refused send: `WhatsApp 131026: Message undeliverable - ...`. */
function failedText(status: CloudApiStatus): string {
  const error = objectsIn<NonNullable<CloudApiStatus['errors']>[number]>(status.errors)[0];
  if (!error) return 'WhatsApp: mensagem não entregue (sem motivo informado)';
  const title = typeof error.title === 'string' ? error.title : typeof error.message === 'string' ? error.message : 'mensagem não entregue';
  const details = typeof error.error_data?.details === 'string' ? ` - ${error.error_data.details}` : '';
  return `WhatsApp${typeof error.code === 'number' ? ` ${error.code}` : ''}: ${title}${details}`;
}

/**
 * Whether a status is about the message it names: the message exists, went by WhatsApp to this
 * number, and, once the send was recorded, under this provider id. A status names its message by
 * our id (biz_opaque_callback_data); all three must agree before it touches that stream, and it
 * can touch no other (the stream is `message-<id>` of that message's own organization).
 */
async function messageOf(app: AppContext, status: CloudApiStatus): Promise<string | null> {
  const messageId = status.biz_opaque_callback_data;
  if (typeof messageId !== 'string' || !/^[0-9a-f]{24}$/.test(messageId)) return null;
  const events = (await app.store.readStream(messageStream(messageId))).map((e) => ({ type: e.type, data: e.data }) as unknown as MessagingEvent);
  const queued = events.find((e) => e.type === 'MessageQueued');
  if (!queued || !queued.data.channels.includes('WHATSAPP')) return null;
  const phone = queued.data.to.phone;
  if (typeof phone !== 'string' || typeof status.recipient_id !== 'string' || whatsAppContact(phone) !== whatsAppContact(status.recipient_id)) return null;
  const sent = events.find((e) => e.type === 'MessageSent' && e.data.channel === 'WHATSAPP');
  if (sent?.type === 'MessageSent' && sent.data.providerMessageId !== null && sent.data.providerMessageId !== status.id) return null;
  return messageId;
}

/**
 * One status of a message of ours: `sent` records SENT if the dispatcher has not yet (Meta took it
 * though our call timed out), `delivered` DELIVERED, `read` the read receipt (and DELIVERED, which
 * it implies), `failed` the copy lost, as an SMS's `undelivered` (recordChannelLost): the next
 * channel of the message takes over, or the message is FAILED (with collection.message.failed for
 * a collection's) when none is left and no other channel carries it. Returns the events recorded.
 */
async function recordStatus(app: AppContext, messageId: string, status: CloudApiStatus): Promise<number> {
  const at = timeOf(status.timestamp, app.clock.now()).toISOString();
  const stream = messageStream(messageId);
  const run = async (command: MessagingCommand) => (await handleCommand(app.store, stream, messagingDecider, command)).events.length;
  switch (status.status) {
    case 'sent':
      return run({ type: 'RecordSent', channel: 'WHATSAPP', providerMessageId: typeof status.id === 'string' ? status.id : null, provider: WHATSAPP_CLOUD_API, at });
    case 'delivered':
      return run({ type: 'RecordDelivered', channel: 'WHATSAPP', at });
    case 'read':
      return run({ type: 'RecordRead', channel: 'WHATSAPP', at });
    case 'failed':
      return recordChannelLost(app, messageId, 'WHATSAPP', failedText(status));
    default:
      return 0;
  }
}

/**
 * A callback of the Cloud API, its signature already checked. Statuses move our messages
 * (recordStatus); inbound messages (`messages`) only open the person's 24-hour window: what they
 * wrote is not read or kept. Anything not ours (another number, an unknown message, a status that
 * does not match its message) is acknowledged and ignored, logged without the number. Returns how
 * many events were recorded.
 */
export async function recordWhatsAppCallback(app: AppContext, payload: unknown, log: Logger): Promise<number> {
  let recorded = 0;
  for (const value of valuesFor(payload, app.config.WHATSAPP_PHONE_NUMBER_ID)) {
    for (const inbound of objectsIn<CloudApiInbound>(value.messages)) {
      if (typeof inbound.from === 'string' && /^\d{8,15}$/.test(inbound.from)) await recordInbound(app, inbound.from, timeOf(inbound.timestamp, app.clock.now()));
    }
    for (const status of objectsIn<CloudApiStatus>(value.statuses)) {
      const messageId = await messageOf(app, status);
      if (!messageId) {
        log.info({ providerMessageId: typeof status.id === 'string' ? status.id : null, status: status.status }, 'WhatsApp status for no message of ours');
        continue;
      }
      try {
        recorded += await recordStatus(app, messageId, status);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        log.info({ messageId, status: status.status, refusal: error.message }, 'WhatsApp status not recorded');
      }
    }
  }
  return recorded;
}
