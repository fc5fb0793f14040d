import nodemailer, { type Transporter } from 'nodemailer';
import { MessagingMessages } from '../../../domain/messaging/messages.ts';
import { ChannelError, type MessageChannelPort, type OutgoingMessage } from './port.ts';

export function emailAddressOf(message: OutgoingMessage): string {
  if (!message.to.email) throw new ChannelError(MessagingMessages.noEmail, true);
  return message.to.email;
}

interface SmtpFailure {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

/**
 * The server's own reply when there is one ("550 5.1.1 <x@y>: Recipient address rejected"),
 * else what went wrong on the way. A 5xx reply is final; 4xx replies, timeouts and lost
 * connections are worth another attempt.
 */
export function smtpChannelError(error: unknown): ChannelError {
  const failure = (error ?? {}) as SmtpFailure;
  const text = failure.response?.trim() || failure.message || String(error);
  return new ChannelError(text, typeof failure.responseCode === 'number' && failure.responseCode >= 500);
}

/** E-mail through an SMTP server (SMTP_URL), with nodemailer. */
export class SmtpEmailChannel implements MessageChannelPort {
  readonly channel = 'EMAIL' as const;
  readonly provider = 'smtp';
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
    timeoutMs: number,
    connections: number,
  ) {
    // Pooled: one SMTP conversation per message costs a connection and a greeting each time.
    this.transport = nodemailer.createTransport({ url, pool: true, maxConnections: connections, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
  }

  async send(message: OutgoingMessage): Promise<{ providerMessageId: string | null }> {
    const to = emailAddressOf(message);
    const { subject, text, html } = message.rendered;
    try {
      const info = await this.transport.sendMail({
        from: this.from,
        to: { name: message.to.name, address: to },
        subject,
        text,
        html,
        // The same id on every attempt lets a mailbox drop a copy a retried dispatch sent again.
        messageId: `<${message.messageId}@messaging.credit-analysis>`,
      });
      return { providerMessageId: typeof info.messageId === 'string' ? info.messageId : null };
    } catch (error) {
      throw smtpChannelError(error);
    }
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}
