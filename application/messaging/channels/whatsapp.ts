import { MessagingMessages } from '../../../domain/messaging/messages.ts';
import { ChannelError, type MessageChannelPort, type OutgoingMessage } from './port.ts';

export function phoneOf(message: OutgoingMessage): string {
  if (!message.to.phone) throw new ChannelError(MessagingMessages.noPhone, true);
  return message.to.phone;
}

interface CloudApiReply {
  messages?: Array<{ id?: string }>;
  error?: { message?: string; code?: number; error_data?: { details?: string } };
}

/**
 * WhatsApp through Meta's Cloud API: `POST {WHATSAPP_API_URL}/{phone-number-id}/messages` with a
 * bearer token, a text message. The provider's error text is what the operator sees. A 4xx other
 * than 429 is final (bad number, bad token, the 24-hour window closed); 429, 5xx, timeouts and
 * network errors are tried again.
 */
export class CloudApiWhatsAppChannel implements MessageChannelPort {
  readonly channel = 'WHATSAPP' as const;
  readonly provider = 'whatsapp-cloud-api';

  constructor(
    private readonly baseUrl: string,
    private readonly phoneNumberId: string,
    private readonly token: string,
    private readonly timeoutMs: number,
  ) {}

  async send(message: OutgoingMessage): Promise<{ providerMessageId: string | null }> {
    const to = phoneOf(message).replace(/^\+/, '');
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl.replace(/(?<!\/)\/+$/, '')}/${encodeURIComponent(this.phoneNumberId)}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
                // The provider returns biz_opaque_callback_data in its status callbacks: that is how a
        // "delivered" finds its message (application/messaging/whatsapp-status.ts).
        body: JSON.stringify({
          messaging_product: 'whatsapp', recipient_type: 'individual', to, type: 'text', text: { preview_url: true, body: message.rendered.text }, biz_opaque_callback_data: message.messageId,
        }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      throw new ChannelError(timedOut ? MessagingMessages.timeout : `WhatsApp: ${error instanceof Error ? error.message : String(error)}`, false);
    }
    const reply = (await response.json().catch(() => ({}))) as CloudApiReply;
    if (!response.ok) {
      const detail = reply.error?.error_data?.details;
      const text = `WhatsApp HTTP ${response.status}: ${reply.error?.message ?? response.statusText}${reply.error?.code !== undefined ? ` (código ${reply.error.code})` : ''}${detail ? ` - ${detail}` : ''}`;
      throw new ChannelError(text, response.status >= 400 && response.status < 500 && response.status !== 429);
    }
    return { providerMessageId: reply.messages?.[0]?.id ?? null };
  }

  async close(): Promise<void> {}
}
