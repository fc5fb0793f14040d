import Type from 'typebox';
import { loadCollection } from '../../../application/collection/commands.ts';
import { recordProviderOutcome } from '../../../application/collection/signature/commands.ts';
import { signatureProviders } from '../../../application/collection/signature/provider.ts';
import { SignatureMessages } from '../../../domain/collection/messages.ts';
import { COLLECTION_STATUSES } from '../../../domain/collection/enums.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { Messages } from '../../../domain/shared/messages.ts';
import { ObjectIdSchema, route, type RouteSpec } from '../../route.ts';
import { validateBody } from '../../validation.ts';

const CallbackBody = Type.Object({
  event: Type.Enum(['envelope.canceled', 'envelope.expired'] as const),
  collectionId: ObjectIdSchema(),
  itemId: ObjectIdSchema(),
  reason: Type.String({ minLength: 1, maxLength: 500 }),
});

/** An external signature provider's word on its envelope (application/collection/signature/provider.ts). */
export const signatureCallbackRoutes: RouteSpec[] = [
  route({
    method: 'post',
    path: '/v1/signature-providers/:provider/callbacks',
    summary: "An external signature provider's callback: its envelope was canceled or expired, and the collection closes",
    description:
      'Public, authenticated by the provider\'s HMAC: `X-Signature-Timestamp` (Unix seconds, within 5 minutes) and `X-Signature: sha256=<hex of HMAC-SHA256 with the ' +
      'provider\'s secret (SIGNATURE_PROVIDERS) over "<timestamp>.<RFC 8785 canonical JSON of the body>">`. Body: `{event: envelope.canceled | envelope.expired, collectionId, itemId, reason}`. ' +
      'The collection becomes CANCELED (collection.canceled) or EXPIRED (collection.expired) with reason, provider and itemId; a callback for a collection already closed changes nothing (recorded false). ' +
      '401 for a missing, wrong or stale signature; 404 for an unknown provider, collection or item.',
    auth: false,
    rawBody: true,
    params: Type.Object({ provider: Type.String({ minLength: 1, maxLength: 40 }) }),
    responses: { 200: Type.Object({ recorded: Type.Boolean(), status: Type.Enum(COLLECTION_STATUSES) }) },
    errors: [401, 404, 409],
    async handle({ app, ctx, params, body }) {
      const provider = signatureProviders(app.config).get(params.provider);
      if (!provider?.authenticate) throw new DomainError('not_found', SignatureMessages.unknownProvider);
      const signed = provider.authenticate({ timestamp: ctx.get('x-signature-timestamp') || undefined, signature: ctx.get('x-signature') || undefined, body }, app.clock.now());
      const callback = validateBody(CallbackBody, signed);
      const state = await loadCollection(app, callback.collectionId);
      if (state.organizationId === null) throw new DomainError('not_found', Messages.collectionNotFound);
      const outcome = callback.event === 'envelope.canceled' ? 'CANCELED' : 'EXPIRED';
      const written = await recordProviderOutcome(app, {
        organizationId: state.organizationId, collectionId: callback.collectionId, itemId: callback.itemId, outcome, reason: callback.reason, provider: provider.name,
      });
      return { recorded: written.position !== null, status: written.state.status };
    },
  }),
];
