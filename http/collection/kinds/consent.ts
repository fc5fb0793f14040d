import { originOf } from '../../client-address.ts';
import Type from 'typebox';
import { acceptConsent, revokeConsentByRecipient } from '../../../application/collection/consent/commands.ts';
import { CollectionMessages } from '../../../domain/collection/messages.ts';
import type { CollectionState, ItemState } from '../../../domain/collection/state.ts';
import { ERASED } from '../../../platform/personal-data/index.ts';
import type { Context } from 'koa';
import type { AppContext } from '../../../application/context.ts';
import { PAGE_FORM_BODY_LIMIT, route, type Reply, type RouteSpec } from '../../route.ts';
import { escape } from '../../../domain/shared/html.ts';
import { isReply, openLink, refusalFor } from '../recipient-link.ts';
import { pageOf } from '../recipient-page.ts';
import { AnswerParams, AnswerReplies, answerItem, bodyOf, itemFirst } from './form-reply.ts';
import type { ItemPage } from './page.ts';

/** A CONSENT item's term; the service computes its hash (a hash given here is ignored). */
export const ConsentConfigSchema = Type.Object(
  {
    type: Type.String({ pattern: '^[a-z][a-z0-9_]{0,59}$', description: 'names the input key kyc.consentimento_<type>, for example scr or lgpd' }),
    version: Type.Integer({ minimum: 1, maximum: 1000000 }),
    text: Type.String({ minLength: 1, maxLength: 20000 }),
    hash: Type.Optional(Type.String({ description: 'SHA-256 of text, set by the service' })),
  },
  { description: 'CONSENT items: the term shown and accepted' },
);

const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()]);
export const ConsentDetailsSchema = Type.Object(
  {
    acceptedAt: Nullable(Type.String({ format: 'date-time' })),
    recipientId: Nullable(Type.String()),
    termHash: Nullable(Type.String({ description: 'SHA-256 of the text accepted' })),
    type: Type.String(),
    version: Type.Integer(),
    ip: Nullable(Type.String({ description: 'address the acceptance came from (evidence; null until accepted, or once the person is erased)' })),
    userAgent: Nullable(Type.String({ description: 'user agent of the acceptance (evidence; null until accepted, or once the person is erased)' })),
    revokedAt: Nullable(Type.String({ format: 'date-time', description: 'when the person withdrew the term (null: it holds, or was never accepted)' })),
    revokedBy: Nullable(Type.String({ description: 'RECIPIENT (on their page) or USER / API_USER (recorded by the organization)' })),
    revocationReason: Nullable(Type.String()),
  },
  { description: 'CONSENT items: who accepted which term, when and from where (null until accepted)' },
);

/** An evidence field as the organization reads it: an erased one (the person's key is gone) is no evidence any more. */
const shown = (value: string | null | undefined) => (value === undefined || value === ERASED ? null : value);

/**
 * Where a CONSENT item's acceptance came from, for the organization only (item details, trail
 * export); null before it is accepted. Never in a webhook nor in anything a recipient reads.
 */
export function consentEvidence(item: ItemState): { ip: string | null; userAgent: string | null } | null {
  const accepted = item.kind === 'CONSENT' ? item.details.consent : undefined;
  return accepted ? { ip: shown(accepted.ip), userAgent: shown(accepted.userAgent) } : null;
}

export function presentConsentDetails(_state: CollectionState, item: ItemState): object {
  const term = item.config?.consent;
  if (item.kind !== 'CONSENT' || !term) return {};
  const accepted = item.details.consent;
  const evidence = consentEvidence(item);
  return {
    consent: {
      acceptedAt: accepted?.acceptedAt ?? null,
      recipientId: accepted?.recipientId ?? null,
      termHash: accepted?.termHash ?? null,
      type: term.type,
      version: term.version,
      ip: evidence?.ip ?? null,
      userAgent: evidence?.userAgent ?? null,
      revokedAt: accepted?.revoked?.at ?? null,
      revokedBy: accepted?.revoked?.actorType ?? null,
      revocationReason: accepted?.revoked?.reason ?? null,
    },
  };
}

/** The term as the person reads it, its version and hash; the accept box while it waits on them. */
export const consentPage: ItemPage = {
  render({ token, item }) {
    const term = item.config?.consent;
    if (!term) return null;
    const text = `<p class="mensagem termo">${escape(term.text)}</p><p><small>Versão ${term.version} · SHA-256 <code data-hash>${term.hash}</code></small></p>`;
    const accepted = item.details.consent;
    const when = (at: string) => escape(new Date(at).toLocaleString('pt-BR', { timeZone: 'America/Sao_Paulo' }));
    if (accepted?.revoked) return `${text}<p>Aceito em ${when(accepted.acceptedAt)}; revogado em ${when(accepted.revoked.at)}.</p>`;
    if (accepted) {
      return `${text}<p class="ok">Aceito em ${when(accepted.acceptedAt)}.</p>
<form method="post" action="/c/${encodeURIComponent(token)}/items/${item.itemId}/consent/revoke">
<label><input type="checkbox" name="revoke" value="true" required style="width:auto"> Quero revogar este consentimento.</label>
<button type="submit">Revogar</button></form>`;
    }
    if (item.status !== 'PENDING') return text;
    return `${text}<form method="post" action="/c/${encodeURIComponent(token)}/items/${item.itemId}/consent">
<input type="hidden" name="termHash" value="${term.hash}">
<label><input type="checkbox" name="accept" value="true" required style="width:auto"> Li e aceito o termo.</label>
<button type="submit">Aceitar</button></form>`;
  },
};

/** The page's box checked: `on`/`true` from a form, `true` from JSON. */
const checked = (value: unknown) => value === true || value === 'true' || value === 'on';

/** A box left unchecked: 400, with the page and the message again for a browser, `{code, message}` otherwise. */
async function uncheckedBox(app: AppContext, ctx: Context, token: string, title: string, message: string): Promise<Reply> {
  const refuse = refusalFor(ctx);
  const link = await openLink(app, token, refuse);
  if (isReply(link)) return link;
  return refuse(400, title, message, await pageOf(app, token, link, { error: message }));
}

export const consentRoutes: RouteSpec[] = [
  route({
    method: 'post',
    path: '/c/:token/items/:itemId/consent',
    summary: "The recipient page's acceptance of a CONSENT item's term; a browser is redirected back to the page",
    description:
      'Body (urlencoded from the page, or JSON): `accept` (the box, checked: true) and `termHash` (the SHA-256 of the term the page showed). ' +
      'CONSENT_ACCEPTED with type, version and hash (the address and user agent are kept as evidence beside the trail entry: sealed, shown to the organization in the item details and the trail export, never in a webhook) and the item VALIDATED. ' +
      '400 when the box is not checked; 409 when the term changed since the page was opened (reload and read it again) or the item is already resolved; 404 for an item not asked of this recipient (before the body is read).',
    auth: false,
    rawBody: true,
    pageForm: true,
    bodyLimit: PAGE_FORM_BODY_LIMIT,
    // The term the item holds stands in for the one the page sends: only the item's state is asked before the body.
    before: itemFirst((item, recipientId) => ({ type: 'AcceptConsent', itemId: item.itemId, recipientId, termHash: item.config?.consent?.hash ?? '', userAgent: null, ip: null })),
    params: AnswerParams,
    responses: AnswerReplies,
    errors: [404, 409],
    async handle({ app, ctx, params, body }) {
      const { accept, termHash } = bodyOf(body);
      if (!checked(accept)) return uncheckedBox(app, ctx, params.token, 'Não foi possível aceitar', CollectionMessages.consentNotChecked);
      return answerItem(app, ctx, params.token, params.itemId, (ref, item) =>
        acceptConsent(app, { ...ref, itemId: item.itemId, termHash: typeof termHash === 'string' ? termHash : '', origin: originOf(ctx), userAgent: ctx.get('user-agent') || null }),
      );
    },
  }),
  route({
    method: 'post',
    path: '/c/:token/items/:itemId/consent/revoke',
    summary: "The recipient page's revocation of a CONSENT item's accepted term; a browser is redirected back to the page",
    description:
      'Body (urlencoded from the page, or JSON): `revoke` (the box, checked: true). CONSENT_REVOKED in the trail (actor RECIPIENT), the policy input kyc.consentimento_<type> turns false, ' +
      'collection.consent.revoked and optin.updated (status REVOKED) are sent. 400 when the box is not checked; 409 when the term was never accepted or is already revoked; 404 for an item not asked of this recipient (before the body is read).',
    auth: false,
    rawBody: true,
    pageForm: true,
    bodyLimit: PAGE_FORM_BODY_LIMIT,
    before: itemFirst((item, recipientId) => ({ type: 'RevokeConsent', itemId: item.itemId, recipientId, reason: null })),
    params: AnswerParams,
    responses: AnswerReplies,
    errors: [404, 409],
    async handle({ app, ctx, params, body }) {
      if (!checked(bodyOf(body).revoke)) return uncheckedBox(app, ctx, params.token, 'Não foi possível revogar', CollectionMessages.consentRevokeNotChecked);
      return answerItem(app, ctx, params.token, params.itemId, (ref, item) => revokeConsentByRecipient(app, { ...ref, itemId: item.itemId, reason: null }));
    },
  }),
];
