import type { Context } from 'koa';
import Type from 'typebox';
import { recipientActor } from '../../../application/collection/actor.ts';
import { refusalBefore, type Without } from '../../../application/collection/commands.ts';
import type { Written } from '../../../application/command-handler.ts';
import type { CollectionState } from '../../../domain/collection/state.ts';
import type { AppContext } from '../../../application/context.ts';
import type { CollectionCommand } from '../../../domain/collection/commands.ts';
import { ITEM_STATUSES } from '../../../domain/collection/enums.ts';
import type { ItemState } from '../../../domain/collection/state.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { ObjectIdSchema, type Reply } from '../../route.ts';
import { RecipientPageTexts as T } from '../recipient-html.ts';
import { isReply, openLink, openLinkItem, refusalFor, STATUS_OF } from '../recipient-link.ts';
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
    const written = await answer(
      ref,
      state.items.find((i) => i.itemId === itemId)!,
    );
    if (ctx.accepts('json', 'html') === 'html') return { status: 303, raw: Buffer.alloc(0), headers: { location: `/c/${encodeURIComponent(token)}#item-${itemId}` } };
    return { status: 200, body: { itemId, status: written.state.items.find((i) => i.itemId === itemId)!.status } };
  } catch (error) {
    if (!(error instanceof DomainError) || !STATUS_OF[error.kind]) throw error;
    return refuse(STATUS_OF[error.kind]!, 'Não foi possível enviar', error.message, await pageOf(app, token, link, { error: error.message }));
  }
}

/**
 * The `before` of a FORM or CONSENT route: the link, the item being this recipient's, and the
 * command the body is for being one the collection would take now, run dry (the real decider)
 * with what the body cannot change (`command`: no answers yet, the term the item holds), all
 * before a byte of the body is read. Only refusals the body cannot change answer here (404: not
 * this recipient's; 409: the item is no longer waiting for this); one about the answers waits for
 * them, and the route's own command decides again when it runs.
 */
export const itemFirst =
  (command: (item: ItemState, recipientId: string) => Without<CollectionCommand>) =>
  async ({ app, ctx, params }: { app: AppContext; ctx: Context; params: { token: string; itemId: string } }): Promise<Reply | undefined> => {
    const refuse = refusalFor(ctx);
    const link = await openLinkItem(app, params.token, params.itemId, refuse);
    if (isReply(link)) return link;
    const { state, recipient } = link;
    try {
      refusalBefore(
        app,
        state,
        recipientActor(recipient.recipientId),
        command(
          state.items.find((i) => i.itemId === params.itemId)!,
          recipient.recipientId,
        ),
      );
      return undefined;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.kind !== 'conflict' && error.kind !== 'not_found') return undefined;
      return refuse(STATUS_OF[error.kind]!, 'Não foi possível enviar', error.message, await pageOf(app, params.token, link, { error: error.message }));
    }
  };
