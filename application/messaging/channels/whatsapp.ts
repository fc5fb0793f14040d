import type { MessageTemplate } from '../../../domain/messaging/events.ts';
import { MessagingMessages } from '../../../domain/messaging/messages.ts';
import { ChannelError, type MessageChannelPort, type OutgoingMessage } from './port.ts';
import { templatePayload, type WhatsAppTemplate } from './whatsapp-templates.ts';

/** The provider name recorded on what this channel sent (provenance), by the send and by Meta's status callbacks. */
export const WHATSAPP_CLOUD_API = 'whatsapp-cloud-api';

export function phoneOf(message: OutgoingMessage): string {
  if (!message.to.phone) throw new ChannelError(MessagingMessages.noPhone, true);
  return message.to.phone;
}

interface CloudApiReply {
  messages?: Array<{ id?: string }>;
  error?: { message?: string; code?: number; error_data?: { details?: string } };
}

/** Meta's "re-engagement message" refusal: free text outside the 24-hour customer window. */
const WINDOW_CLOSED = 131047;

class CloudApiError extends ChannelError {
  constructor(
    text: string,
    permanent: boolean,
    readonly code: number | undefined,
  ) {
    super(text, permanent);
  }
}

export interface CloudApiSettings {
  baseUrl: string;
  phoneNumberId: string;
  token: string;
  timeoutMs: number;
  /** The approved template of each message kind (WHATSAPP_TEMPLATES over the defaults). */
  templates: Record<MessageTemplate, WhatsAppTemplate>;
  /** Whether the person wrote to the business number recently enough for free text (application/messaging/whatsapp-window.ts). */
  windowOpen(phone: string): Promise<boolean>;
}

/**
 * WhatsApp through Meta's Cloud API: `POST {WHATSAPP_API_URL}/{phone-number-id}/messages` with a
 * bearer token. Every message of ours is business-initiated, and Meta takes those only as approved
 * templates (`type: "template"`, the kind's name, language and parameters); free text (`type:
 * "text"`, the whole rendered message) goes only while the person's 24-hour window is open, and a
 * text Meta still refuses for the window (131047) goes again at once as the template. The
 * provider's error text is what the operator sees. A 4xx other than 429 is final (bad number, bad
 * token, a template not approved); 429, 5xx, timeouts and network errors are tried again.
 */
export class CloudApiWhatsAppChannel implements MessageChannelPort {
  readonly channel = 'WHATSAPP' as const;
  readonly provider = WHATSAPP_CLOUD_API;

  constructor(private readonly settings: CloudApiSettings) {}

  async send(message: OutgoingMessage): Promise<{ providerMessageId: string | null }> {
    const to = phoneOf(message).replace(/^\+/, '');
    if (await this.settings.windowOpen(to)) {
      try {
        return await this.post(message, to, { type: 'text', text: { preview_url: true, body: message.rendered.text } });
      } catch (error) {
        if (!(error instanceof CloudApiError) || error.code !== WINDOW_CLOSED) throw error;
      }
    }
    const template = this.settings.templates[message.template];
    return await this.post(message, to, { type: 'template', template: templatePayload(template, { recipientName: message.to.name, content: message.content }) });
  }

  private async post(message: OutgoingMessage, to: string, body: Record<string, unknown>): Promise<{ providerMessageId: string | null }> {
    const { baseUrl, phoneNumberId, token, timeoutMs } = this.settings;
    let response: Response;
    try {
      response = await fetch(`${baseUrl.replace(/(?<!\/)\/+$/, '')}/${encodeURIComponent(phoneNumberId)}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        // The provider returns biz_opaque_callback_data in its status callbacks: that is how a
        // status finds its message (application/messaging/whatsapp-status-commands.ts).
        body: JSON.stringify({ messaging_product: 'whatsapp', recipient_type: 'individual', to, ...body, biz_opaque_callback_data: message.messageId }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      throw new ChannelError(timedOut ? MessagingMessages.timeout : `WhatsApp: ${error instanceof Error ? error.message : String(error)}`, false);
    }
    const reply = (await response.json().catch(() => ({}))) as CloudApiReply;
    if (!response.ok) {
      const detail = reply.error?.error_data?.details;
      const text = `WhatsApp HTTP ${response.status}: ${reply.error?.message ?? response.statusText}${reply.error?.code !== undefined ? ` (código ${reply.error.code})` : ''}${detail ? ` - ${detail}` : ''}`;
      throw new CloudApiError(text, response.status >= 400 && response.status < 500 && response.status !== 429, reply.error?.code);
    }
    return { providerMessageId: reply.messages?.[0]?.id ?? null };
  }

  async close(): Promise<void> {}
}
