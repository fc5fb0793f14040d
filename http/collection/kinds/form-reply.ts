import type { Context } from 'koa';
import Type from 'typebox';
import type { Written } from '../../../application/command-handler.ts';
import type { CollectionState } from '../../../domain/collection/state.ts';
import type { AppContext } from '../../../application/context.ts';
import { ITEM_STATUSES } from '../../../domain/collection/enums.ts';
import type { ItemState } from '../../../domain/collection/state.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { ObjectIdSchema, type Reply } from '../../route.ts';
import { RecipientPageTexts as T } from '../recipient-html.ts';
import { isReply, openLink, refusalFor, STATUS_OF } from '../recipient-link.ts';
import { pageOf } from '../recipient-page.ts';

/** What the FORM and CONSENT controls of the recipient page post to: the link, then the item. */
export const AnswerParams = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: 'the link token the recipient received' }),
  itemId: ObjectIdSchema(),
});

export const AnswerReplies = {
  200: Type.Object({ itemId: Type.String(), status: Type.Enum(ITEM_STATUSES) }, { description: 'for a client that does not ask for HTML' }),
  303: Type.Null({ description: "for a browser: back to the page (Location, at the item), which shows the item's new status" }),
};

/** A page's form posts urlencoded text; an API client posts JSON. */
export const postedByPage = (ctx: Context) => ctx.is('application/x-www-form-urlencoded') !== false;
export const bodyOf = (body: unknown): Record<string, unknown> => (body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {});

export type Answer = (ref: { organizationId: string; collectionId: string; recipientId: string }, item: ItemState) => Promise<Written<CollectionState>>;

/**
 * One answer of the person holding the link: the link is checked (and refused with a page that
 * says why), the item must be one asked of them, the command runs; a browser goes back to the page
 * (post/redirect/get: a reload does not post again), other clients get the item's status. A
 * refusal re-renders the page with the message for a browser, `{code, message}` otherwise.
 */
export async function answerItem(app: AppContext, ctx: Context, token: string, itemId: string, answer: Answer): Promise<Reply> {
  const refuse = refusalFor(ctx);
  const link = await openLink(app, token, refuse);
  if (isReply(link)) return link;
  const { state, recipient } = link;
  if (!recipient.itemIds.includes(itemId)) return refuse(404, T.linkInvalidTitle, T.itemGone);
  const ref = { organizationId: state.organizationId!, collectionId: state.collectionId!, recipientId: recipient.recipientId };
  try {
    const written = await answer(ref, state.items.find((i) => i.itemId === itemId)!);
    if (ctx.accepts('json', 'html') === 'html') return { status: 303, raw: Buffer.alloc(0), headers: { location: `/c/${encodeURIComponent(token)}#item-${itemId}` } };
    return { status: 200, body: { itemId, status: written.state.items.find((i) => i.itemId === itemId)!.status } };
  } catch (error) {
    if (!(error instanceof DomainError) || !STATUS_OF[error.kind]) throw error;
    return refuse(STATUS_OF[error.kind]!, 'Não foi possível enviar', error.message, await pageOf(app, token, link, { error: error.message }));
  }
}
