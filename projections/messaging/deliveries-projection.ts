import type { Knex } from 'knex';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { Projection } from '../../platform/projections/projection.ts';
import { firstChannels, type MessageQueuedData } from '../../domain/messaging/decider.ts';

export const MESSAGING_DELIVERIES_PROJECTION = 'messaging-deliveries';

/**
 * The dispatcher's queue: a due row per channel of each queued message tried first (all of them
 * when none falls back to another). Run under the dispatcher
 * role (application/messaging/workers.ts), not among the projector's projections, so a deployment
 * without a dispatcher fills no queue. A rebuild re-creates rows of messages already sent; the
 * dispatcher checks the message's stream before sending and closes those without sending again.
 */
export const messagingDeliveriesProjection: Projection = {
  name: MESSAGING_DELIVERIES_PROJECTION,
  eventTypes: ['MessageQueued'],
  tables: ['messaging_deliveries'],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
    const rows = events.flatMap((event) => {
      const data = event.data as unknown as MessageQueuedData;
      // A channel that takes over from another gets its row when that one gives up (application/messaging/send-commands.ts).
      return firstChannels(data).map((channel) => ({
        message_id: data.messageId,
        channel,
        organization_id: data.organizationId,
        status: 'pending',
        next_attempt_at: trx.fn.now(),
        created_at: trx.fn.now(),
      }));
    });
    if (rows.length) await trx('messaging_deliveries').insert(rows).onConflict(['message_id', 'channel']).ignore();
  },
};
