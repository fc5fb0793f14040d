import Type from 'typebox';
import { recordWhatsAppStatuses, validWhatsAppSignature } from '../../application/messaging/whatsapp-status.ts';
import type { AppContext } from '../../application/context.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { HttpError } from '../errors.ts';
import { PROVIDER_CALLBACKS, route, type RouteTable } from '../route.ts';

const PATH = `${PROVIDER_CALLBACKS}whatsapp`;

/** The callback exists only when the Cloud API is configured with its app secret. */
function appSecretOf(app: AppContext): string {
  if (!app.config.WHATSAPP_APP_SECRET) throw new HttpError(404, Messages.resourceNotFound);
  return app.config.WHATSAPP_APP_SECRET;
}

const VerifyQuery = Type.Object({
  'hub.mode': Type.Optional(Type.String()),
  'hub.verify_token': Type.Optional(Type.String()),
  'hub.challenge': Type.Optional(Type.String({ maxLength: 200 })),
});

/**
 * Meta's WhatsApp Cloud API calls back here (docs/messaging.md): the subscription check (GET) and
 * message statuses (POST), signed with the app secret over the exact body. Public: the signature
 * is the credential.
 */
export const messagingRoutes: RouteTable = {
  module: 'messaging',
  description: "Providers' callbacks: WhatsApp Cloud API message statuses (delivered) for invitations, reminders and notices.",
  routes: [
    route({
      method: 'get',
      path: PATH,
      summary: "Meta's subscription check: answers hub.challenge when hub.verify_token is WHATSAPP_VERIFY_TOKEN",
      auth: false,
      query: VerifyQuery,
      files: ['text/plain'],
      errors: [403, 404],
      async handle({ app, query }) {
        appSecretOf(app);
        const expected = app.config.WHATSAPP_VERIFY_TOKEN;
        if (query['hub.mode'] !== 'subscribe' || !expected || query['hub.verify_token'] !== expected) throw new HttpError(403, MessagingMessages.badVerifyToken);
        return { status: 200, raw: Buffer.from(query['hub.challenge'] ?? ''), headers: { 'content-type': 'text/plain; charset=utf-8' } };
      },
    }),
    route({
      method: 'post',
      path: PATH,
      summary: 'Message statuses from the WhatsApp Cloud API (X-Hub-Signature-256 over the raw body): delivered and read make the message DELIVERED',
      auth: false,
      rawBody: true,
      responses: { 200: Type.Object({ recorded: Type.Integer({ description: 'deliveries recorded now (repeats count 0)' }) }) },
      errors: [401, 404],
      async handle({ app, ctx, body, unparsedBody }) {
        const secret = appSecretOf(app);
        if (unparsedBody === undefined || !validWhatsAppSignature(secret, unparsedBody, ctx.get('x-hub-signature-256') || undefined)) {
          throw new HttpError(401, MessagingMessages.badSignature);
        }
        return { recorded: await recordWhatsAppStatuses(app, body, ctx.state.log) };
      },
    }),
  ],
};
