import type { Context } from 'koa';
import { loadCollection } from '../../application/collection/commands.ts';
import { linkClaim } from '../../application/collection/links.ts';
import type { AppContext } from '../../application/context.ts';
import { isClosed, type CollectionState, type RecipientState } from '../../domain/collection/state.ts';
import type { DomainError } from '../../domain/shared/errors.ts';
import { findRecipientByToken } from '../../projections/collection/queries.ts';
import { hashLinkToken } from '../../platform/link-token.ts';
import type { Reply } from '../route.ts';
import { messagePage, RecipientPageTexts as T } from './recipient-html.ts';

/** The recipient link as a credential: what every route under /c/{token} checks first. */

export const STATUS_OF: Partial<Record<DomainError['kind'], number>> = { invalid: 400, not_found: 404, conflict: 409 };

export const html = (status: number, text: string): Reply => ({ status, raw: Buffer.from(text), headers: { 'content-type': 'text/html; charset=utf-8' } });

/** A refusal: a page for a browser (it asks for HTML), the API's `{code, message}` for anything else. */
export type Refuse = (status: number, title: string, message: string, page?: string) => Reply;
export const refusalFor =
  (ctx: Context): Refuse =>
  (status, title, message, page) =>
    ctx.accepts('json', 'html') === 'html' ? html(status, page ?? messagePage(title, message)) : { status, body: { code: status, message } };

export interface OpenLink {
  state: CollectionState;
  recipient: RecipientState;
}

/**
 * The link's collection and recipient while it may be used, or the refusal, always 404 (the
 * API's shared error statuses have no 410) with a page that says why: an unknown or replaced
 * token, a collection not sent yet, or one closed or past its deadline (the expiry job may not
 * have run yet). Nothing is recorded on a refusal. The collection comes from the token and its
 * stream, never from a read model, so a link works as soon as its creation is written; the token
 * is accepted only if its hash is the one the stream holds for that recipient (the current version).
 */
export async function openLink(app: AppContext, token: string, refuse: Refuse): Promise<OpenLink | Reply> {
  const claim = linkClaim(token) ?? (await findRecipientByToken(app.db, token));
  const state = claim && (await loadCollection(app, claim.collectionId));
  const recipient = state?.recipients.find((r) => r.recipientId === claim!.recipientId);
  if (!state || !recipient || recipient.linkHash !== hashLinkToken(token)) return refuse(404, T.linkInvalidTitle, T.linkInvalid);
  if (state.status === 'DRAFT') return refuse(404, T.notSentTitle, T.linkInvalid);
  if (isClosed(state) || (state.expiresAt !== null && state.expiresAt <= app.clock.now().toISOString())) return refuse(404, T.closedTitle, T.closed);
  return { state, recipient };
}

export const isReply = (value: OpenLink | Reply): value is Reply => 'status' in value;

/** The link opened and one of its recipient's items: the same 404 for an item of another recipient as for a bad link. */
export async function openLinkItem(app: AppContext, token: string, itemId: string, refuse: Refuse): Promise<OpenLink | Reply> {
  const link = await openLink(app, token, refuse);
  if (isReply(link)) return link;
  return link.recipient.itemIds.includes(itemId) ? link : refuse(404, T.linkInvalidTitle, T.itemGone);
}
