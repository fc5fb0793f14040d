import type { Knex } from 'knex';
import type { MessageStatus } from '../../domain/messaging/content.ts';
import type { MessageChannel, MessageTemplate } from '../../domain/messaging/events.ts';

export interface MessageView {
  messageId: string;
  /** Null for a platform user's notice (then userId is set). */
  collectionId: string | null;
  recipientId: string | null;
  userId: string | null;
  template: MessageTemplate;
  channels: MessageChannel[];
  status: MessageStatus;
  sentChannels: MessageChannel[];
  deliveredChannels: MessageChannel[];
  /** Channels whose provider reported it read (WhatsApp); the status stays DELIVERED. */
  readChannels: MessageChannel[];
  error: string | null;
  queuedAt: string;
  updatedAt: string;
}

interface MessageRow {
  id: string;
  collection_id: string | null;
  recipient_id: string | null;
  user_id: string | null;
  template: MessageTemplate;
  channels: MessageChannel[];
  status: MessageStatus;
  sent_channels: MessageChannel[];
  delivered_channels: MessageChannel[];
  read_channels: MessageChannel[];
  error: string | null;
  queued_at: Date;
  updated_at: Date;
}

function toView(row: MessageRow): MessageView {
  return {
    messageId: row.id,
    collectionId: row.collection_id,
    recipientId: row.recipient_id,
    userId: row.user_id,
    template: row.template,
    channels: row.channels,
    status: row.status,
    sentChannels: row.sent_channels,
    deliveredChannels: row.delivered_channels,
    readChannels: row.read_channels,
    error: row.error,
    queuedAt: row.queued_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function findMessage(db: Knex, organizationId: string, messageId: string): Promise<MessageView | null> {
  const row: MessageRow | undefined = await db('messaging_messages').where({ organization_id: organizationId, id: messageId }).first();
  return row ? toView(row) : null;
}

/** A collection's messages, oldest first (what was said to whom, and what became of it). */
export async function messagesOfCollection(db: Knex, organizationId: string, collectionId: string): Promise<MessageView[]> {
  const rows: MessageRow[] = await db('messaging_messages')
    .where({ organization_id: organizationId, collection_id: collectionId })
    .orderBy([{ column: 'queued_at' }, { column: 'id' }]);
  return rows.map(toView);
}
