import Type from 'typebox';
import { loadCollection } from '../../../application/collection/commands.ts';
import { recordProviderOutcome } from '../../../application/collection/signature/commands.ts';
import { signatureProviders } from '../../../application/collection/signature/provider.ts';
import { SignatureMessages } from '../../../domain/collection/messages.ts';
import { COLLECTION_STATUSES } from '../../../domain/collection/enums.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { Messages } from '../../../domain/shared/messages.ts';
import { ObjectIdSchema, PROVIDER_CALLBACKS, route, type RouteSpec } from '../../route.ts';
import { validateBody } from '../../validation.ts';

const CallbackBody = Type.Object({
  event: Type.Enum(['envelope.canceled', 'envelope.expired'] as const),
  collectionId: ObjectIdSchema(),
  itemId: ObjectIdSchema(),
  envelopeId: Type.String({ minLength: 1, maxLength: 200 }),
  reason: Type.String({ minLength: 1, maxLength: 500 }),
});

/** Where providers call back (under PROVIDER_CALLBACKS, so the parser keeps the exact bytes the signature covers). */
export const SIGNATURE_CALLBACK_PATH = `${PROVIDER_CALLBACKS}signature-providers/:provider`;

/** One callback route; the same handler answers at both paths. */
const callbackRoute = (path: string, summary: string, keepUnparsedBody: boolean) =>
  route({
    method: 'post',
    path,
    summary,
    description:
      "Public, authenticated by the provider's HMAC: `X-Signature-Timestamp` (Unix seconds, within 5 minutes) and `X-Signature: sha256=<hex of HMAC-SHA256 with the " +
      'provider\'s secret (SIGNATURE_PROVIDERS) over "<timestamp>.<the request body exactly as sent>">`. Body: `{event: envelope.canceled | envelope.expired, collectionId, itemId, envelopeId, reason}`. ' +
      'The collection becomes CANCELED (collection.canceled) or EXPIRED (collection.expired) with reason, provider and itemId; a callback for a collection already closed changes nothing (recorded false). ' +
      '401 for a missing, wrong or stale signature, or a body changed after signing (re-ordered or re-spaced included); 404 for an unknown provider, collection or item, ' +
      "and for an item whose config.signature.externalEnvelope does not name this provider and this envelopeId (another organization's collection, or one that never used the provider).",
    auth: false,
    rawBody: true,
    keepUnparsedBody,
    params: Type.Object({ provider: Type.String({ minLength: 1, maxLength: 40 }) }),
    responses: { 200: Type.Object({ recorded: Type.Boolean(), status: Type.Enum(COLLECTION_STATUSES) }) },
    errors: [401, 404, 409],
    async handle({ app, ctx, params, unparsedBody }) {
      const provider = signatureProviders(app.config).get(params.provider);
      if (!provider?.authenticate) throw new DomainError('not_found', SignatureMessages.unknownProvider);
      const signed = provider.authenticate({ timestamp: ctx.get('x-signature-timestamp') || undefined, signature: ctx.get('x-signature') || undefined, rawBody: unparsedBody }, app.clock.now());
      const callback = validateBody(CallbackBody, signed);
      const state = await loadCollection(app, callback.collectionId);
      // A provider's secret is service-wide: the callback acts only on an item whose organization
      // recorded an envelope of this very provider, and only for that envelope. Any other is
      // answered as unknown and changes nothing.
      const envelope = state.items.find((i) => i.itemId === callback.itemId)?.config?.signature?.externalEnvelope;
      if (state.organizationId === null || envelope?.provider !== provider.name || envelope.envelopeId !== callback.envelopeId) {
        throw new DomainError('not_found', Messages.collectionNotFound);
      }
      const outcome = callback.event === 'envelope.canceled' ? 'CANCELED' : 'EXPIRED';
      const written = await recordProviderOutcome(app, {
        organizationId: state.organizationId,
        collectionId: callback.collectionId,
        itemId: callback.itemId,
        outcome,
        reason: callback.reason,
        provider: provider.name,
      });
      return { recorded: written.position !== null, status: written.state.status };
    },
  });

/** An external signature provider's word on its envelope (application/collection/signature/provider.ts). */
export const signatureCallbackRoutes: RouteSpec[] = [
  callbackRoute(SIGNATURE_CALLBACK_PATH, "An external signature provider's callback: its envelope was canceled or expired, and the collection closes", false),
  callbackRoute('/v1/signature-providers/:provider/callbacks', `The same callback at its first path, kept for providers configured with it (prefer ${SIGNATURE_CALLBACK_PATH})`, true),
];
