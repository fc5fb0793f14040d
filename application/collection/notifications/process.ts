import type Logger from 'bunyan';
import type { CollectionState, RecipientState } from '../../../domain/collection/state.ts';
import { collectionCorrelationOf, notSentMessageProvenance, sentMessageProvenance, type CollectionTemplate, type MessageEvent } from '../../../domain/messaging/events.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import type { RecordedEvent } from '../../../platform/eventstore/port.ts';
import { organizationName } from '../../../projections/identity/queries.ts';
import type { AppContext } from '../../context.ts';
import { queueMessage, withdrawPendingMessages } from '../../messaging/commands.ts';
import { organizationChannelOrder } from '../../messaging/settings-commands.ts';
import { MessagingMessages } from '../../../domain/messaging/messages.ts';
import { MESSAGING_PROJECTION } from '../../../projections/messaging/projection.ts';
import { loadCollection, recordMessageChannelFailed, recordMessageFailed, recordRecipientNotified } from '../commands.ts';
import { recipientLink } from '../links.ts';
import { isLive, messageFor, pendingItemsOf } from './messages.ts';
import { schedule, unschedule } from './schedule.ts';

/** The events the notification process reacts to. */
export const NOTIFICATION_EVENT_TYPES = [
  'CollectionSent',
  'RecipientAdded',
  'RecipientLinkReissued',
  'CollectionCompleted',
  'CollectionCanceled',
  'CollectionExpired',
  'MessageSent',
  'MessageChannelFailed',
  'MessageFailed',
  'MessageNotSent',
] as const;

type Envelope = { organizationId: string; collectionId: string; recipientId: string | null };

/**
 * Queue one template for recipients of a collection. Invitations and reminders go only to those
 * with an item still waiting on them, with their current link rebuilt from the link version.
 */
export async function notify(
  app: AppContext,
  state: CollectionState,
  recipients: readonly RecipientState[],
  template: CollectionTemplate,
  key: (recipient: RecipientState) => string,
): Promise<number> {
  if (!state.organizationId || !state.collectionId) return 0;
  const organization = (await organizationName(app.db, state.organizationId)) ?? '';
  const organizationOrder = await organizationChannelOrder(app, state.organizationId);
  let queued = 0;
  for (const recipient of recipients) {
    const completed = template === 'COLLECTION_COMPLETED';
    if (completed ? recipient.itemIds.length === 0 : pendingItemsOf(state, recipient).length === 0) continue;
    const link = completed ? null : recipientLink(app, state.collectionId, recipient.recipientId, recipient.linkVersion).url;
    const input = messageFor(app.config, state, recipient, { template, key: key(recipient), link, organizationName: organization, organizationOrder });
    if (!input) continue;
    await queueMessage(app, input);
    queued++;
  }
  return queued;
}

/**
 * The collection side of messaging: invitations when a collection is sent, a recipient is added
 * to a sent collection or a link is reissued; completion notices; the schedule the reminder and
 * expiry jobs read; and each message's outcome written back to the collection's trail. Every
 * reaction may run twice (a replayed batch): messages are deduplicated by key, outcomes by
 * message id.
 */
export class NotificationProcess {
  constructor(
    private readonly app: AppContext,
    private readonly log: Logger,
  ) {}

  async handle(event: Pick<RecordedEvent, 'type' | 'data' | 'position'>): Promise<void> {
    if (event.type.startsWith('Message')) return this.outcome(event as unknown as MessageEvent);
    const { organizationId, collectionId, recipientId } = event.data as unknown as Envelope;
    const state = await loadCollection(this.app, collectionId);
    const invite = (recipients: readonly RecipientState[]) => notify(this.app, state, recipients, 'COLLECTION_INVITE', (r) => String(r.linkVersion));
    switch (event.type) {
      case 'CollectionSent':
        if (!isLive(state)) return;
        await schedule(this.app.db, state);
        await invite(state.recipients);
        return;
      case 'RecipientAdded':
      case 'RecipientLinkReissued':
        if (isLive(state)) await invite(state.recipients.filter((r) => r.recipientId === recipientId));
        return;
      case 'CollectionCompleted':
        await this.close(organizationId, collectionId, event.position);
        await notify(this.app, state, state.recipients, 'COLLECTION_COMPLETED', () => 'done');
        return;
      default:
        // Canceled or expired: nothing more is sent about it.
        await this.close(organizationId, collectionId, event.position);
    }
  }

  /**
   * A closed collection leaves the schedule, and its invitations and reminders still waiting to
   * leave are withdrawn, once the messaging read model holds every message queued before the close.
   */
  private async close(organizationId: string, collectionId: string, position: RecordedEvent['position']): Promise<void> {
    await unschedule(this.app.db, collectionId);
    await this.app.readYourWrites([MESSAGING_PROJECTION], position);
    const templates = ['COLLECTION_INVITE', 'COLLECTION_REMINDER'] as const;
    await withdrawPendingMessages(this.app, { organizationId, collectionId, templates }, MessagingMessages.withdrawnCollectionClosed);
  }

  private async outcome(event: MessageEvent): Promise<void> {
    const { organizationId, messageId, template } = event.data;
    const correlation = collectionCorrelationOf(event.data.correlation);
    if (!correlation) return;
    const target = { organizationId, collectionId: correlation.collectionId, recipientId: correlation.recipientId, messageId };
    try {
      if (event.type === 'MessageSent')
        await recordRecipientNotified(this.app, { ...target, channel: event.data.channel, reminder: template === 'COLLECTION_REMINDER', provenance: sentMessageProvenance(event.data) });
      // A channel lost (given up, or reported lost after taking it): the trail shows it before the next channel's send.
      else if (event.type === 'MessageChannelFailed') await recordMessageChannelFailed(this.app, { ...target, channel: event.data.channel, error: event.data.error, next: event.data.next });
      else if (event.type === 'MessageFailed') await recordMessageFailed(this.app, { ...target, error: event.data.error, notSent: false });
      // Nothing left the machine: the recipient did not get it, exactly as when a channel failed.
      else if (event.type === 'MessageNotSent') await recordMessageFailed(this.app, { ...target, error: event.data.reason, notSent: true, provenance: notSentMessageProvenance(event.data) });
    } catch (error) {
      // A message about a collection that no longer takes it (erased, unknown) is not retried.
      if (!(error instanceof DomainError)) throw error;
      this.log.warn({ messageId, collectionId: correlation.collectionId, reason: error.message }, 'message outcome not recorded in the collection');
    }
  }
}
