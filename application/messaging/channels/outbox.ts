import type Logger from 'bunyan';
import type { Knex } from 'knex';
import { keyringFor } from '../../../config/index.ts';
import { SANDBOX_OUTBOX_PROVIDER, type MessageChannel } from '../../../domain/messaging/events.ts';
import { openFields, sealFields, subjectKeysFor } from '../../../platform/personal-data/index.ts';
import type { AppContext } from '../../context.ts';
import type { ChannelOutcome, MessageChannelPort, OutgoingMessage } from './port.ts';

/** The columns of a spooled message that hold what it says and to whom: sealed at rest. */
const SEALED_COLUMNS = ['to', 'subject', 'text', 'html'] as const;

export interface OutboxMessage {
  messageId: string;
  channel: MessageChannel;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  createdAt: Date;
}

/**
 * The sandbox channel: the message is written to `messaging_outbox` instead of leaving the
 * machine, and reported NOT_SENT with `reason` (never SENT: nobody received it), the copy kept for
 * developers to read. It stands for e-mail when SMTP_URL is unset and for the WhatsApp and SMS
 * sandboxes (an SMS keeps its short text). Writing
 * twice (a retried dispatch) keeps the first row. The texts carry the recipient's link (which
 * opens their page) and signature codes: the row holds them sealed with the addressee's key
 * (docs/personal-data.md), so a copy of the table opens nothing and erasing the addressee erases
 * the row's texts; the log line names the message, never its text or address.
 */
export class OutboxChannel implements MessageChannelPort {
  readonly provider = SANDBOX_OUTBOX_PROVIDER;
  constructor(
    readonly channel: MessageChannel,
    private readonly app: Pick<AppContext, 'config' | 'db'>,
    private readonly log: Logger,
    /** The address this channel would use, or the refusal when the person has none. */
    private readonly addressOf: (message: OutgoingMessage) => string,
    /** Why nothing was sent (MessagingMessages.notSent*). */
    private readonly reason: string,
  ) {}

  async send(message: OutgoingMessage): Promise<ChannelOutcome> {
    const to = this.addressOf(message);
    const { subject, html } = message.rendered;
    const text = this.channel === 'SMS' ? message.short : message.rendered.text;
    const { config, db } = this.app;
    const sealed = await sealFields(subjectKeysFor(config, db), keyringFor(config, 'pepper'), message.addressee, { to, subject, text, html: this.channel === 'EMAIL' ? html : null }, new Date());
    await db('messaging_outbox')
      .insert({ message_id: message.messageId, channel: this.channel, ...sealed })
      .onConflict(['message_id', 'channel'])
      .ignore();
    this.log.info({ messageId: message.messageId, channel: this.channel }, 'message written to the sandbox messaging outbox (not sent)');
    return { notSent: this.reason, sandbox: true };
  }

  async close(): Promise<void> {}
}

/** The spooled messages `where` picks, opened (what the embedded channels "sent"); an erased addressee's read `***`. */
export async function readOutbox(app: Pick<AppContext, 'config' | 'db'>, where: (query: Knex.QueryBuilder) => Knex.QueryBuilder = (q) => q): Promise<OutboxMessage[]> {
  const rows: Array<Record<string, unknown>> = await where(app.db('messaging_outbox')).orderBy('created_at');
  const keys = subjectKeysFor(app.config, app.db);
  return Promise.all(
    rows.map(async (row) => {
      const opened = await openFields(keys, Object.fromEntries(SEALED_COLUMNS.map((column) => [column, row[column]])));
      return { messageId: row.message_id, channel: row.channel, ...opened, createdAt: row.created_at } as OutboxMessage;
    }),
  );
}
