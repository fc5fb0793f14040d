import Type from 'typebox';
import type { AppContext } from '../../application/context.ts';
import { recordSmsStatus, validSmsSignature } from '../../application/messaging/sms-status-commands.ts';
import { smsStatusCallbackUrl, SMS_STATUS_PATH } from '../../application/messaging/channels/sms.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { HttpError } from '../errors.ts';
import { route, type RouteTable } from '../route.ts';

/** The callback exists only with Twilio as the SMS provider and its auth token, which signs the callbacks. */
function authTokenOf(app: AppContext): string {
  if (app.config.SMS_PROVIDER !== 'twilio' || !app.config.TWILIO_AUTH_TOKEN) throw new HttpError(404, Messages.resourceNotFound);
  return app.config.TWILIO_AUTH_TOKEN;
}

/**
 * Twilio's status callback for one SMS (docs/messaging.md): form-encoded, small (a status and a
 * few ids), signed with the auth token over the URL it was given and the sorted parameters.
 * Public: the signature is the credential.
 */
export const smsRoutes: RouteTable = {
  module: 'messaging',
  routes: [
    route({
      method: 'post',
      path: SMS_STATUS_PATH,
      summary:
        'SMS statuses from Twilio (X-Twilio-Signature over the URL and the sorted form parameters): delivered makes the message DELIVERED; undelivered and failed hand it to the next channel, or make it FAILED',
      auth: false,
      query: Type.Object({ message: Type.String({ pattern: '^[0-9a-f]{24}$', errorMessage: MessagingMessages.badCallbackMessage }) }),
      rawBody: true,
      pageForm: true,
      // A status callback is a few hundred bytes; anyone may post here, so nothing larger is read.
      bodyLimit: '8kb',
      responses: { 200: Type.Object({ recorded: Type.Integer({ description: 'message events recorded now (repeats count 0)' }) }) },
      errors: [401, 404, 413],
      async handle({ app, ctx, query, unparsedBody }) {
        const authToken = authTokenOf(app);
        const params = Object.fromEntries(new URLSearchParams(unparsedBody ?? ''));
        if (!ctx.is('application/x-www-form-urlencoded') || !validSmsSignature(authToken, smsStatusCallbackUrl(app.config, query.message), params, ctx.get('x-twilio-signature') || undefined)) {
          throw new HttpError(401, MessagingMessages.badSignature);
        }
        return { recorded: await recordSmsStatus(app, query.message, params, ctx.state.log) };
      },
    }),
  ],
};
