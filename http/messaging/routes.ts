import type { IncomingMessage } from 'node:http';
import Type from 'typebox';
import { recordWhatsAppCallback, validWhatsAppSignature } from '../../application/messaging/whatsapp-status-commands.ts';
import type { AppContext } from '../../application/context.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { bodyParseError, HttpError } from '../errors.ts';
import { PROVIDER_CALLBACKS, route, type RouteTable } from '../route.ts';

const PATH = `${PROVIDER_CALLBACKS}whatsapp`;

/** Meta's documented ceiling for a webhook payload: anything larger is not Meta's and is not read on. */
const CALLBACK_BODY_LIMIT = 3 * 1024 * 1024;

/** The callback exists only when the Cloud API is configured with its app secret. */
function appSecretOf(app: AppContext): string {
  if (!app.config.WHATSAPP_APP_SECRET) throw new HttpError(404, Messages.resourceNotFound);
  return app.config.WHATSAPP_APP_SECRET;
}

/**
 * The body's exact bytes, at most `limit`: a Content-Length above it is refused before a byte is
 * read, and a chunked body stops being collected as it passes it (the 413's errorMiddleware
 * reads the rest off). Nothing parses them: the signature is checked first.
 */
function readBoundedBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const tooLarge = () => bodyParseError({ status: 413 });
  if (Number(req.headers['content-length']) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => req.off('data', take).off('end', end).off('error', fail).off('aborted', fail);
    const take = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stop();
      reject(tooLarge());
    };
    const end = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const fail = (error?: unknown) => {
      stop();
      reject(error instanceof Error ? error : new HttpError(400, Messages.malformedJson));
    };
    req.on('data', take).on('end', end).on('error', fail).on('aborted', fail);
  });
}

const VerifyQuery = Type.Object({
  'hub.mode': Type.Optional(Type.String()),
  'hub.verify_token': Type.Optional(Type.String()),
  'hub.challenge': Type.Optional(Type.String({ maxLength: 200 })),
});

/**
 * Meta's WhatsApp Cloud API calls back here (docs/messaging.md): the subscription check (GET) and
 * the `messages` field (POST): statuses of what we sent and the messages people send us (they
 * open the 24-hour window for free text). Public: the signature over the exact body, with the app
 * secret, is the credential, checked before the body is parsed.
 */
export const messagingRoutes: RouteTable = {
  module: 'messaging',
  description: "Providers' callbacks: WhatsApp Cloud API message statuses (sent, delivered, read, failed) and customer messages (the 24-hour window).",
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
      summary:
        'WhatsApp Cloud API callbacks (X-Hub-Signature-256 over the raw body): statuses move messages to SENT, DELIVERED (read receipts kept) or FAILED; customer messages open the 24-hour window',
      auth: false,
      streamedBody: true,
      responses: { 200: Type.Object({ recorded: Type.Integer({ description: 'message events recorded now (repeats count 0)' }) }) },
      errors: [400, 401, 404, 413],
      async handle({ app, ctx }) {
        const secret = appSecretOf(app);
        const raw = await readBoundedBody(ctx.req, CALLBACK_BODY_LIMIT);
        if (!validWhatsAppSignature(secret, raw, ctx.get('x-hub-signature-256') || undefined)) throw new HttpError(401, MessagingMessages.badSignature);
        let payload: unknown;
        try {
          payload = JSON.parse(raw.toString('utf8'));
        } catch {
          throw new HttpError(400, Messages.malformedJson);
        }
        return { recorded: await recordWhatsAppCallback(app, payload, ctx.state.log) };
      },
    }),
  ],
};
