import type { Context } from 'koa';
import Type from 'typebox';
import { recipientActor } from '../../application/collection/actor.ts';
import { recordRecipientOpened, refusalBefore, submitItemDocument, type Without } from '../../application/collection/commands.ts';
import { checkFilesPerItem, countUploadBytes, type PerDayCap } from '../../application/collection/upload-limits.ts';
import type { AppContext } from '../../application/context.ts';
import { receiveDocument, REGISTRY_DOCUMENT_MAX_BYTES } from '../../application/registry/intake-commands.ts';
import type { CollectionCommand } from '../../domain/collection/commands.ts';
import { ITEM_STATUSES } from '../../domain/collection/enums.ts';
import { feedsRegistry, isAwaitingRecipient } from '../../domain/collection/state.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { organizationName } from '../../projections/identity/queries.ts';
import { ObjectIdSchema, route, type Reply, type RouteSpec } from '../route.ts';
import { ITEM_PAGES } from './kinds/index.ts';
import { html, isReply, openLink, openLinkItem, refusalFor, STATUS_OF, type OpenLink } from './recipient-link.ts';
import { recipientPage, RecipientPageTexts as T } from './recipient-html.ts';

const UPLOAD_FIELD = 'file';
/** Only this recipient's items, in the collection's order. */
export async function pageOf(app: AppContext, token: string, { state, recipient }: OpenLink, extra: { notice?: string; error?: string } = {}): Promise<string> {
  const items = state.items
    .filter((item) => recipient.itemIds.includes(item.itemId))
    .map((item) => ({
      itemId: item.itemId,
      title: item.title,
      instructions: item.instructions,
      status: item.status,
      resendReason: item.resendReason,
      uploadable: (item.kind === 'DOCUMENT' || item.kind === 'CUSTOM') && isAwaitingRecipient(item),
      // A FORM, CONSENT, IDENTITY or SIGNATURE item brings its own controls.
      controls: ITEM_PAGES[item.kind]?.render({ token, state, recipient, item }) ?? null,
    }));
  return recipientPage({
    token,
    organizationName: await organizationName(app.db, state.organizationId!),
    recipientName: recipient.name,
    message: state.message,
    expiresAt: state.expiresAt,
    items,
    ...extra,
  });
}

/** A placeholder id (exported for the identity route) for the dry run of a command whose real id exists only once the body is read. */
export const NOT_YET = '0'.repeat(24);
const ADMIT_STATUS: Partial<Record<DomainError['kind'], number>> = { ...STATUS_OF, too_many: 429 };

/**
 * What a recipient's upload route asks before a byte of its body is read: the link, the item
 * being this recipient's, the command the file is for being one the collection would take now
 * (`command`, run dry: kind and status), what the item took today (`perDay`: files, checks) and the
 * link's bytes of the day. The refusal is the answer (a page for a browser, with Retry-After on a
 * 429); nothing is received, stored or recorded. The route's own command decides again when it runs.
 */
export async function admitUpload(
  app: AppContext,
  ctx: Context,
  token: string,
  itemId: string,
  command: (recipientId: string) => Without<CollectionCommand>,
  options: { maxBytes: number; perDay: PerDayCap },
): Promise<Reply | undefined> {
  const refuse = refusalFor(ctx);
  const link = await openLinkItem(app, token, itemId, refuse);
  if (isReply(link)) return link;
  const { state, recipient } = link;
  try {
    refusalBefore(app, state, recipientActor(recipient.recipientId), command(recipient.recipientId));
    options.perDay(app.config, state, recipient.recipientId, itemId, app.clock.now());
    // What the request says it carries; without a length (chunked), the most the route takes.
    await countUploadBytes(app, state.collectionId!, recipient.recipientId, Number(ctx.get('content-length')) || options.maxBytes);
    return undefined;
  } catch (error) {
    const status = error instanceof DomainError ? ADMIT_STATUS[error.kind] : undefined;
    if (!status) throw error;
    const { message, headers } = error as DomainError;
    const reply = refuse(status, 'Não foi possível enviar', message, await pageOf(app, token, link, { error: message }));
    return { ...reply, headers: { ...reply.headers, ...headers } };
  }
}

async function upload(app: AppContext, ctx: Context, token: string, itemId: string, file: { fileName: string; bytes: Buffer }): Promise<Reply> {
  const refuse = refusalFor(ctx);
  const link = await openLinkItem(app, token, itemId, refuse);
  if (isReply(link)) return link;
  const { state, recipient } = link;
  const item = state.items.find((i) => i.itemId === itemId)!;
  const ref = { organizationId: state.organizationId!, collectionId: state.collectionId!, recipientId: recipient.recipientId };
  try {
    const { registryDocumentId } = await receiveDocument(app, {
      organizationId: ref.organizationId,
      registryId: state.registryId,
      fileName: file.fileName,
      bytes: file.bytes,
      expectedType: item.expectedType,
      source: { collectionId: ref.collectionId, itemId, recipientId: ref.recipientId },
      // A public form's intake nobody linked: the file is the visitor's, kept out of the registry.
      intake: !feedsRegistry(state),
      actor: { actorType: 'RECIPIENT', actorId: ref.recipientId },
    });
    const written = await submitItemDocument(app, { ...ref, itemId, registryDocumentId });
    // Post/redirect/get for a browser: a reload of the page does not send the file again.
    if (ctx.accepts('json', 'html') === 'html') return { status: 303, raw: Buffer.alloc(0), headers: { location: `/c/${encodeURIComponent(token)}?enviado=1` } };
    return { status: 200, body: { itemId, registryDocumentId, status: written.state.items.find((i) => i.itemId === itemId)!.status } };
  } catch (error) {
    if (!(error instanceof DomainError) || !STATUS_OF[error.kind]) throw error;
    return refuse(STATUS_OF[error.kind]!, 'Não foi possível enviar', error.message, await pageOf(app, token, link, { error: error.message }));
  }
}

const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: 'the link token the recipient received' }) });

/**
 * The recipient's side of a collection (docs/collection-trail.md): public, the token in the link
 * is the credential and stops working with the collection. Portuguese pages for a browser.
 */
export const recipientPageRoutes: RouteSpec[] = [
  route({
    method: 'get',
    path: '/c/:token',
    summary: "A recipient's page (HTML): who asks, the operator's message, this person's items with their status, a form per pending file",
    description:
      'Opening it records RECIPIENT_OPENED the first time. An unknown or replaced link, a collection not sent, canceled, completed or expired: 404 with a message that says which. Errors are pages for a browser (Accept: text/html), the error body otherwise.',
    auth: false,
    files: ['text/html'],
    params: TokenParams,
    query: Type.Object({ enviado: Type.Optional(Type.String({ description: 'set by the redirect after an upload: shows a notice' })) }),
    errors: [404],
    async handle({ app, ctx, params, query }) {
      const link = await openLink(app, params.token, refusalFor(ctx));
      if (isReply(link)) return link;
      const { state, recipient } = link;
      await recordRecipientOpened(app, { organizationId: state.organizationId!, collectionId: state.collectionId!, recipientId: recipient.recipientId });
      return html(200, await pageOf(app, params.token, link, query.enviado ? { notice: T.sent } : {}));
    },
  }),
  route({
    method: 'post',
    path: '/c/:token/items/:itemId',
    summary: "The page's upload form: one file (PDF, JPEG or PNG) for one of the recipient's items; a browser is redirected back to the page",
    description:
      'multipart/form-data with the file in field `file`. The file goes to the registry (type sniffed from its bytes) with the collection, item and recipient as its source, then ITEM_SUBMITTED; 303 to the page. 400 for a refused file, 404 for an item not asked of this recipient, 409 for an item no longer waiting for a file.',
    auth: false,
    params: Type.Object({ token: TokenParams.properties.token, itemId: ObjectIdSchema() }),
    upload: { field: UPLOAD_FIELD, maxBytes: REGISTRY_DOCUMENT_MAX_BYTES },
    responses: {
      200: Type.Object({ itemId: Type.String(), registryDocumentId: Type.String(), status: Type.Enum(ITEM_STATUSES) }, { description: 'for a client that does not ask for HTML' }),
      303: Type.Null({ description: 'for a browser: back to the page (Location), which now shows the item in analysis' }),
    },
    errors: [404, 409, 429],
    async before({ app, ctx, params }) {
      const command = (recipientId: string) => ({ type: 'SubmitItemDocument', itemId: params.itemId, recipientId, registryDocumentId: NOT_YET }) as const;
      return admitUpload(app, ctx, params.token, params.itemId, command, { maxBytes: REGISTRY_DOCUMENT_MAX_BYTES, perDay: checkFilesPerItem });
    },
    async handle({ app, ctx, params, file }) {
      return upload(app, ctx, params.token, params.itemId, file!);
    },
  }),
];
