import type { Principal } from '../../domain/identity/access.ts';
import type { MessageChannel } from '../../domain/messaging/events.ts';
import { messagingSettingsDecider, messagingSettingsStream, type MessagingSettings, type SaveMessagingSettings } from '../../domain/messaging/settings-decider.ts';
import { handleCommand, loadState, type Written } from '../command-handler.ts';
import type { AppContext } from '../context.ts';

type Caller = Pick<Principal, 'organizationId' | 'userId'>;

/**
 * The organization's messaging settings, from its stream: one small stream read when a message is
 * planned, so a save applies to the next message without waiting for a read model.
 */
export async function messagingSettings(app: Pick<AppContext, 'store'>, organizationId: string): Promise<MessagingSettings> {
  return (await loadState(app.store, messagingSettingsStream(organizationId), messagingSettingsDecider)).state;
}

/** The organization's own channel order, or null for the deployment's. */
export const organizationChannelOrder = async (app: Pick<AppContext, 'store'>, organizationId: string): Promise<MessageChannel[] | null> => (await messagingSettings(app, organizationId)).channelOrder;

export function saveMessagingSettings(app: Pick<AppContext, 'store' | 'clock'>, caller: Caller, settings: SaveMessagingSettings['settings']): Promise<Written<MessagingSettings>> {
  const { organizationId, userId } = caller;
  return handleCommand(app.store, messagingSettingsStream(organizationId), messagingSettingsDecider, { organizationId, userId, settings, at: app.clock.now().toISOString() });
}
