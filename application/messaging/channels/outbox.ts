import type Logger from 'bunyan';
import type { Knex } from 'knex';
import type { MessageChannel } from '../../../domain/messaging/events.ts';
import type { MessageChannelPort, OutgoingMessage } from './port.ts';

/**
 * The offline channel: the message is written to `messaging_outbox` and the log instead of
 * leaving the machine. It is the e-mail channel when SMTP_URL is unset and the WhatsApp sandbox.
 * Writing twice (a retried dispatch) keeps the first row.
 */
export class OutboxChannel implements MessageChannelPort {
  constructor(
    readonly channel: MessageChannel,
    private readonly db: Knex,
    private readonly log: Logger,
    /** The address this channel would use, or the refusal when the person has none. */
    private readonly addressOf: (message: OutgoingMessage) => string,
  ) {}

  async send(message: OutgoingMessage): Promise<{ providerMessageId: string | null }> {
    const to = this.addressOf(message);
    const { subject, text, html } = message.rendered;
    await this.db('messaging_outbox')
      .insert({ message_id: message.messageId, channel: this.channel, to, subject, text, html: this.channel === 'EMAIL' ? html : null })
      .onConflict(['message_id', 'channel'])
      .ignore();
    this.log.info({ messageId: message.messageId, channel: this.channel, to, subject, text }, 'message written to the messaging outbox (not sent)');
    return { providerMessageId: null };
  }

  async close(): Promise<void> {}
}
