import { messagingSettings, saveMessagingSettings } from '../../application/messaging/settings-commands.ts';
import { Gates } from '../gates.ts';
import { route, type RouteTable } from '../route.ts';
import { MessagingSettingsSchema } from './schemas.ts';

export const messagingSettingsRoutes: RouteTable = {
  module: 'messaging',
  description: "The organization's messaging settings: the channel order of the messages to its customers (docs/messaging.md)",
  routes: [
    route({
      method: 'get',
      path: '/v1/messaging/settings',
      summary: "The organization's messaging settings (channelOrder null: the deployment's order)",
      gate: Gates.messagingSettings,
      responses: { 200: MessagingSettingsSchema },
      async handle({ app, principal }) {
        return messagingSettings(app, principal.organizationId);
      },
    }),
    route({
      method: 'put',
      path: '/v1/messaging/settings',
      summary: "Replace the messaging settings: channelOrder ranks WHATSAPP, SMS and EMAIL for the organization's messages; a recipient's own order wins over it",
      gate: Gates.messagingSettings,
      body: MessagingSettingsSchema,
      responses: { 200: MessagingSettingsSchema },
      async handle({ app, principal, body }) {
        // Read from the stream when a message is planned: no read model to wait for.
        return (await saveMessagingSettings(app, principal, { channelOrder: body.channelOrder })).state;
      },
    }),
  ],
};
