import type { Context } from 'koa';
import Type from 'typebox';
import { recipientActor } from '../../../application/collection/actor.ts';
import { runIdentityCheck } from '../../../application/collection/identity/check.ts';
import { checkIdentityChecksPerItem } from '../../../application/collection/upload-limits.ts';
import { viewIdentityImage } from '../../../application/collection/identity/images.ts';
import type { AppContext } from '../../../application/context.ts';
import { ITEM_STATUSES } from '../../../domain/collection/enums.ts';
import { identityEvaluation } from '../../../domain/collection/kinds/identity.ts';
import { IdentityMessages } from '../../../domain/collection/messages.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { Gates } from '../../gates.ts';
import { ObjectIdSchema, route, type Reply, type RouteSpec } from '../../route.ts';
import type { UploadedFile } from '../../upload.ts';
import { isReply, openLinkItem, refusalFor, STATUS_OF } from '../recipient-link.ts';
import { admitUpload, NOT_YET, pageOf } from '../recipient-page.ts';
import { IDENTITY_VERDICTS } from './identity.ts';

/** Each picture's limit: a phone photo is a few megabytes. */
export const IDENTITY_IMAGE_MAX_BYTES = 10 * 1024 * 1024;
/** The provider may not answer: 502, and the person may try again. */
const STATUS = { ...STATUS_OF, upstream: 502 };

async function check(app: AppContext, ctx: Context, token: string, itemId: string, files: Readonly<Record<string, UploadedFile>>): Promise<Reply> {
  const refuse = refusalFor(ctx);
  const link = await openLinkItem(app, token, itemId, refuse);
  if (isReply(link)) return link;
  const { state, recipient } = link;
  try {
    const { check, state: after } = await runIdentityCheck(app, {
      organizationId: state.organizationId!,
      collectionId: state.collectionId!,
      itemId,
      recipientId: recipient.recipientId,
      document: files.document!.bytes,
      selfie: files.selfie!.bytes,
      actor: recipientActor(recipient.recipientId),
    });
    if (ctx.accepts('json', 'html') === 'html') return { status: 303, raw: Buffer.alloc(0), headers: { location: `/c/${encodeURIComponent(token)}?enviado=1` } };
    const status = after.items.find((i) => i.itemId === itemId)!.status;
    return { status: 200, body: { itemId, checkId: check.checkId, verdict: check.verdict, evaluation: identityEvaluation(check), status } };
  } catch (error) {
    const status = error instanceof DomainError ? STATUS[error.kind as keyof typeof STATUS] : undefined;
    if (!status) throw error;
    const message = (error as DomainError).message;
    return refuse(status, 'Não foi possível verificar', message, await pageOf(app, token, link, { error: message }));
  }
}

const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), itemId: ObjectIdSchema() });
const ImageParams = Type.Object({
  id: ObjectIdSchema(),
  itemId: ObjectIdSchema(),
  checkId: ObjectIdSchema(),
  index: Type.Integer({ minimum: 0, maximum: 1, description: '0: the document photo, 1: the selfie' }),
});

export const identityRoutes: RouteSpec[] = [
  route({
    method: 'post',
    path: '/c/:token/items/:itemId/identity',
    summary: "The recipient page's identity check: a document photo and a selfie (JPEG or PNG) for an IDENTITY item, or for a SIGNATURE_AND_IDENTITY item before signing",
    description:
      'multipart/form-data with the files in fields `document` and `selfie` (types sniffed from the bytes). The images are stored (never returned), IDENTITY_CHECK_STARTED then IDENTITY_COMPLETED; an IDENTITY item is VALIDATED (APROVADO), REJECTED (REPROVADO: the person may try again) or MANUAL_REVIEW (INCONCLUSIVO). A browser is redirected to the page (303). 400 for a missing or non-image file, 404 for an item not asked of this person, 409 for an item not waiting for a check, 429 (with Retry-After, before the body is read) past RECIPIENT_IDENTITY_CHECKS_PER_ITEM_PER_DAY checks of the item by this person in 24 hours, 502 when the provider gave no result (nothing decided; try again).',
    auth: false,
    params: TokenParams,
    upload: { field: 'document', alsoFields: ['selfie'], maxBytes: IDENTITY_IMAGE_MAX_BYTES },
    responses: {
      200: Type.Object(
        { itemId: Type.String(), checkId: Type.String(), verdict: Type.Enum(IDENTITY_VERDICTS), evaluation: Type.String(), status: Type.Enum(ITEM_STATUSES) },
        { description: 'for a client that does not ask for HTML' },
      ),
      303: Type.Null({ description: 'for a browser: back to the page (Location)' }),
    },
    errors: [404, 409, 429, 502],
    async before({ app, ctx, params }) {
      const command = (recipientId: string) => ({ type: 'StartIdentityCheck' as const, itemId: params.itemId, recipientId, checkId: NOT_YET, imageBlobIds: [NOT_YET, NOT_YET] });
      return admitUpload(app, ctx, params.token, params.itemId, command, { maxBytes: 2 * IDENTITY_IMAGE_MAX_BYTES, perDay: checkIdentityChecksPerItem });
    },
    async handle({ app, ctx, params, files }) {
      return check(app, ctx, params.token, params.itemId, files!);
    },
  }),
  route({
    method: 'get',
    path: '/v1/collections/:id/items/:itemId/identity-checks/:checkId/images/:index',
    summary: 'One image of an identity check (0: document photo, 1: selfie); each view is recorded in the trail (IDENTITY_IMAGES_VIEWED, never a webhook)',
    description: `404 \`${IdentityMessages.imageNotFound}\` for an image not stored or erased with its subject, \`${IdentityMessages.checkNotFound}\` for an unknown check.`,
    gate: Gates.collections,
    params: ImageParams,
    files: ['image/jpeg', 'image/png'],
    errors: [404],
    async handle({ app, principal, params }) {
      const blob = await viewIdentityImage(app, principal, { collectionId: params.id, itemId: params.itemId, checkId: params.checkId, index: params.index });
      return { status: 200, raw: blob.bytes, headers: { 'content-type': blob.contentType, 'cache-control': 'no-store', 'content-disposition': `inline; filename="${blob.fileName}"` } };
    },
  }),
];
