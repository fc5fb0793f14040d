import type { MessageContent } from '../../../domain/messaging/content.ts';
import type { CollectionTemplate, MessageChannel } from '../../../domain/messaging/events.ts';
import type { NotificationChannel } from '../../../domain/collection/enums.ts';
import { isAwaitingRecipient, type CollectionState, type RecipientState } from '../../../domain/collection/state.ts';
import type { Config } from '../../../config/index.ts';
import { planChannels, type ChannelPlan } from '../../messaging/channel-order.ts';
import type { QueueMessageInput } from '../../messaging/commands.ts';

/**
 * The collection's channel as routes (planChannels): WHATSAPP is the phone, WhatsApp or SMS; BOTH
 * allows the e-mail and the phone as one route, so the channel order picks the first the person
 * has an address for and the others take over one at a time, instead of e-mail and phone at once
 * (the contract's BOTH names the channels allowed; it asks for no copy on each).
 */
const ROUTES: Record<NotificationChannel, MessageChannel[][]> = { EMAIL: [['EMAIL']], WHATSAPP: [['WHATSAPP', 'SMS']], BOTH: [['EMAIL', 'WHATSAPP', 'SMS']], NONE: [] };

/** A collection that was sent and is not closed: the only kind anybody is notified about. */
export const isLive = (state: CollectionState) => state.status === 'SENT' || state.status === 'IN_PROGRESS';

/** Titles of the recipient's items still waiting on them (nothing received, or a new file asked for). */
export function pendingItemsOf(state: CollectionState, recipient: RecipientState): string[] {
  return state.items.filter((item) => recipient.itemIds.includes(item.itemId) && isAwaitingRecipient(item)).map((item) => item.title);
}

/**
 * The channels a message to this recipient goes on: the collection's, less those the person has no
 * address for, in the recipient's channel order, else the organization's, else the deployment's,
 * one falling back to the next. With no address at all the first channel stays, so the message
 * fails visibly (collection.message.failed) instead of nobody hearing of it.
 */
export function channelsFor(
  config: Pick<Config, 'MESSAGE_CHANNEL_ORDER' | 'SMS_PROVIDER'>,
  channel: NotificationChannel,
  recipient: RecipientState,
  organizationOrder: readonly MessageChannel[] | null,
): ChannelPlan {
  return planChannels(config, ROUTES[channel], recipient, { recipient: recipient.channelOrder, organization: organizationOrder });
}

export interface MessageRequest {
  template: CollectionTemplate;
  /** What makes the message unique besides its collection and recipient (link version, reminder day). */
  key: string;
  link: string | null;
  organizationName: string;
  /** The organization's channel order (its messaging settings), null for the deployment's. */
  organizationOrder: readonly MessageChannel[] | null;
}

const KEY_PREFIX: Record<CollectionTemplate, string> = { COLLECTION_INVITE: 'invite', COLLECTION_REMINDER: 'reminder', COLLECTION_COMPLETED: 'completed', SIGNATURE_CODE: 'signature-code' };

/** The message for one recipient, or null when the collection's channel is NONE. */
export function messageFor(config: Pick<Config, 'MESSAGE_CHANNEL_ORDER' | 'SMS_PROVIDER'>, state: CollectionState, recipient: RecipientState, request: MessageRequest): QueueMessageInput | null {
  const plan = channelsFor(config, state.channel, recipient, request.organizationOrder);
  if (!plan.channels.length || !state.organizationId || !state.collectionId) return null;
  const content: MessageContent = {
    link: request.link,
    subjectName: state.subject.name,
    organizationName: request.organizationName,
    operatorMessage: state.message,
    pendingItems: request.template === 'COLLECTION_COMPLETED' ? [] : pendingItemsOf(state, recipient),
    expiresAt: request.template === 'COLLECTION_COMPLETED' ? null : state.expiresAt,
  };
  return {
    organizationId: state.organizationId,
    dedupeKey: `${KEY_PREFIX[request.template]}:${state.collectionId}:${recipient.recipientId}:${request.key}`,
    template: request.template,
    ...plan,
    to: { name: recipient.name, email: recipient.email, phone: recipient.phone },
    correlation: { collectionId: state.collectionId, recipientId: recipient.recipientId },
    content,
  };
}
