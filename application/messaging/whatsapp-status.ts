import type Logger from 'bunyan';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { messagingDecider } from '../../domain/messaging/decider.ts';
import { messageStream } from '../../domain/messaging/events.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';

/** X-Hub-Signature-256 of a Cloud API callback: `sha256=` + hex HMAC-SHA256(app secret, the raw body). */
export function whatsAppSignature(appSecret: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(Buffer.from(rawBody, 'utf8')).digest('hex')}`;
}

export function validWhatsAppSignature(appSecret: string, rawBody: string, header: string | undefined): boolean {
  const expected = Buffer.from(whatsAppSignature(appSecret, rawBody));
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

interface CloudApiStatus {
  id?: string;
  status?: string;
  timestamp?: string;
  biz_opaque_callback_data?: string;
}

/** `entry[].changes[].value.statuses[]` of a callback; anything else in it (incoming messages) is not ours to read. */
function statusesOf(payload: unknown): CloudApiStatus[] {
  const entries = (payload as { entry?: unknown })?.entry;
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry) => {
    const changes = (entry as { changes?: unknown })?.changes;
    return Array.isArray(changes) ? changes.flatMap((c) => ((c as { value?: { statuses?: unknown } })?.value?.statuses as CloudApiStatus[] | undefined) ?? []) : [];
  }).filter((s) => s && typeof s === 'object');
}

/** The provider's time of a status (Unix seconds), else now. */
const timeOf = (status: CloudApiStatus, now: Date) => (/^\d{1,12}$/.test(status.timestamp ?? '') ? new Date(Number(status.timestamp) * 1000) : now).toISOString();

/**
 * The Cloud API's status callback: `delivered` (and `read`, which implies it) records the message
 * DELIVERED on WhatsApp. The message is the one named by `biz_opaque_callback_data` (set when it was
 * sent); statuses of messages sent without it, of unknown ids or of another channel are ignored.
 * `sent` adds nothing (the dispatcher recorded SENT when the API took it) and `failed` after that
 * does not take it back (docs/messaging.md). Returns how many deliveries were new.
 */
export async function recordWhatsAppStatuses(app: AppContext, payload: unknown, log: Logger): Promise<number> {
  let recorded = 0;
  for (const status of statusesOf(payload)) {
    const messageId = status.biz_opaque_callback_data;
    if ((status.status !== 'delivered' && status.status !== 'read') || !messageId || !/^[0-9a-f]{24}$/.test(messageId)) continue;
    try {
      const { events } = await handleCommand(app.store, messageStream(messageId), messagingDecider, { type: 'RecordDelivered', channel: 'WHATSAPP', at: timeOf(status, app.clock.now()) });
      recorded += events.length;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      log.info({ messageId, providerMessageId: status.id, refusal: error.message }, 'WhatsApp status for no message of ours');
    }
  }
  return recorded;
}
