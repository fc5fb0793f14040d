import type { Knex } from 'knex';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { Projection } from '../../platform/projections/projection.ts';
import type { MessagingEvent } from '../../domain/messaging/decider.ts';
import { collectionCorrelationOf } from '../../domain/messaging/events.ts';

export const MESSAGING_PROJECTION = 'messaging';
export const MESSAGING_EVENT_TYPES = [
  'MessageQueued',
  'MessageSent',
  'MessageDelivered',
  'MessageRead',
  'MessageChannelFailed',
  'MessageFailed',
  'MessageNotSent',
  'MessageWithdrawn',
] as const satisfies ReadonlyArray<MessagingEvent['type']>;

async function apply(event: MessagingEvent, trx: Knex.Transaction): Promise<void> {
  const { messageId, at } = event.data;
  const row = trx('messaging_messages').where({ id: messageId });
  switch (event.type) {
    case 'MessageQueued': {
      const { organizationId, template, channels } = event.data;
      const collection = collectionCorrelationOf(event.data.correlation);
      await trx('messaging_messages')
        .insert({
          id: messageId,
          organization_id: organizationId,
          collection_id: collection?.collectionId ?? null,
          recipient_id: collection?.recipientId ?? null,
          user_id: 'userId' in event.data.correlation ? event.data.correlation.userId : null,
          template,
          channels: JSON.stringify(channels),
          status: 'PENDING',
          queued_at: at,
          updated_at: at,
        })
        .onConflict('id')
        .ignore();
      return;
    }
    case 'MessageSent':
      // DELIVERED stays: a second channel leaving later does not step the status back.
      await row.update({
        status: trx.raw(`case when status = 'DELIVERED' then status else 'SENT' end`),
        sent_channels: trx.raw(`sent_channels || ?::jsonb`, [JSON.stringify([event.data.channel])]),
        updated_at: at,
      });
      return;
    case 'MessageDelivered':
      await row.update({ status: 'DELIVERED', delivered_channels: trx.raw(`delivered_channels || ?::jsonb`, [JSON.stringify([event.data.channel])]), updated_at: at });
      return;
    case 'MessageRead':
      await row.update({ status: 'DELIVERED', read_channels: trx.raw(`read_channels || ?::jsonb`, [JSON.stringify([event.data.channel])]), updated_at: at });
      return;
    case 'MessageChannelFailed':
      // The status waits for the next channel or for MessageFailed (none left carrying it); the channel's words show meanwhile.
      await row.update({ error: event.data.error, updated_at: at });
      return;
    case 'MessageFailed':
      await row.update({ status: 'FAILED', error: event.data.error, updated_at: at });
      return;
    case 'MessageNotSent':
      await row.update({ status: 'NOT_SENT', error: event.data.reason, updated_at: at });
      return;
    case 'MessageWithdrawn':
      await row.update({ status: 'FAILED', error: event.data.reason, updated_at: at });
  }
}

/** Each message's status: PENDING, SENT, DELIVERED, FAILED or NOT_SENT (`error` says why), with the channels it left on, reached and was read on. */
export const messagingProjection: Projection = {
  name: MESSAGING_PROJECTION,
  eventTypes: MESSAGING_EVENT_TYPES,
  tables: ['messaging_messages'],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
    for (const event of events) await apply({ type: event.type, data: event.data } as unknown as MessagingEvent, trx);
  },
};
