import Type from 'typebox';
import { MESSAGE_CHANNELS } from '../../domain/messaging/content.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';

/**
 * A channel order: known channels, each once; null for the next level's order (the recipient's
 * falls to the organization's, the organization's to the deployment's). The names are checked by
 * validChannelOrder with the same text, so a wrong name reads one message rather than the
 * union's and its branch's; a union hides its branch's errorMessage, so the text goes on the union.
 */
export const ChannelOrderSchema = Type.Union([Type.Array(Type.String({ maxLength: 16 }), { minItems: 1, maxItems: MESSAGE_CHANNELS.length }), Type.Null()], {
  errorMessage: MessagingMessages.invalidChannelOrder,
  description: 'channels to try in turn, each once: WHATSAPP, SMS, EMAIL; one left out ranks after those named; null: the next level decides',
});

export const MessagingSettingsSchema = Type.Object({ channelOrder: ChannelOrderSchema });
