import type { Decider, DomainEvent } from '../shared/decider.ts';
import { sameContent } from '../shared/canonical.ts';
import { DomainError } from '../shared/errors.ts';
import { MESSAGE_CHANNELS } from './content.ts';
import type { MessageChannel } from './events.ts';
import { MessagingMessages } from './messages.ts';

/** One stream per organization: its messaging settings. */
export const messagingSettingsStream = (organizationId: string) => `messagingsettings-${organizationId}`;

/** What an organization configures for the messages sent to its customers. */
export interface MessagingSettings {
  /**
   * Which channel a message to a person tries first, then next (docs/messaging.md, "Channel
   * order"); a channel it leaves out ranks after those it names, in the deployment's order. null:
   * the deployment's MESSAGE_CHANNEL_ORDER.
   */
  channelOrder: MessageChannel[] | null;
}

export const DEFAULT_MESSAGING_SETTINGS: MessagingSettings = { channelOrder: null };

export type MessagingSettingsSaved = DomainEvent<'MessagingSettingsSaved', { organizationId: string; userId: string; settings: MessagingSettings; at: string }>;

/** `channelOrder` as the caller wrote it: the decider checks the names. */
export type SaveMessagingSettings = { organizationId: string; userId: string; settings: { channelOrder: string[] | null }; at: string };

/** A channel order names known channels, each once, and at least one (an empty one says nothing: null does). */
export function validChannelOrder(order: readonly string[]): order is MessageChannel[] {
  return order.length > 0 && new Set(order).size === order.length && order.every((channel) => (MESSAGE_CHANNELS as readonly string[]).includes(channel));
}

/** A save replaces every setting; the same settings again record nothing. */
export const messagingSettingsDecider: Decider<SaveMessagingSettings, MessagingSettingsSaved, MessagingSettings> = {
  initialState: () => DEFAULT_MESSAGING_SETTINGS,
  evolve: (_state, event) => event.data.settings,
  decide(command, state) {
    const { organizationId, userId, at } = command;
    const { channelOrder } = command.settings;
    if (channelOrder !== null && !validChannelOrder(channelOrder)) throw new DomainError('invalid', MessagingMessages.invalidChannelOrder);
    const settings: MessagingSettings = { channelOrder };
    if (sameContent(settings, state)) return [];
    return [{ type: 'MessagingSettingsSaved', data: { organizationId, userId, settings, at } }];
  },
};
