import { originOf } from '../../client-address.ts';
import Type from 'typebox';
import { acceptConsent } from '../../../application/collection/consent/commands.ts';
import { CollectionMessages } from '../../../domain/collection/messages.ts';
import type { CollectionState, ItemState } from '../../../domain/collection/state.ts';
import { ERASED } from '../../../platform/personal-data/index.ts';
import { route, type RouteSpec } from '../../route.ts';
import { escape } from '../../../domain/shared/html.ts';
import { isReply, openLink, refusalFor } from '../recipient-link.ts';
import { pageOf } from '../recipient-page.ts';
import { AnswerParams, AnswerReplies, answerItem, bodyOf } from './form-reply.ts';
import type { ItemPage } from './page.ts';

/** A CONSENT item's term; the service computes its hash (a hash given here is ignored). */
export const ConsentConfigSchema = Type.Object({
  type: Type.String({ pattern: '^[a-z][a-z0-9_]{0,59}$', description: 'names the input key kyc.consentimento_<type>, for example scr or lgpd' }),
  version: Type.Integer({ minimum: 1, maximum: 1000000 }),
  text: Type.String({ minLength: 1, maxLength: 20000 }),
  hash: Type.Optional(Type.String({ description: 'SHA-256 of text, set by the service' })),
}, { description: 'CONSENT items: the term shown and accepted' });

const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()]);
export const ConsentDetailsSchema = Type.Object({
  acceptedAt: Nullable(Type.String({ format: 'date-time' })),
  recipientId: Nullable(Type.String()),
  termHash: Nullable(Type.String({ description: 'SHA-256 of the text accepted' })),
  type: Type.String(),
  version: Type.Integer(),
  ip: Nullable(Type.String({ description: 'address the acceptance came from (evidence; null until accepted, or once the person is erased)' })),
  userAgent: Nullable(Type.String({ description: 'user agent of the acceptance (evidence; null until accepted, or once the person is erased)' })),
}, { description: 'CONSENT items: who accepted which term, when and from where (null until accepted)' });

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
    if (accepted) return `${text}<p class="ok">Aceito em ${escape(new Date(accepted.acceptedAt).toLocaleString('pt-BR', { timeZone: 'America/Sao_Paulo' }))}.</p>`;
    if (item.status !== 'PENDING') return text;
    return `${text}<form method="post" action="/c/${encodeURIComponent(token)}/items/${item.itemId}/consent">
<input type="hidden" name="termHash" value="${term.hash}">
<label><input type="checkbox" name="accept" value="true" required style="width:auto"> Li e aceito o termo.</label>
<button type="submit">Aceitar</button></form>`;
  },
};

export const consentRoutes: RouteSpec[] = [
  route({
    method: 'post',
    path: '/c/:token/items/:itemId/consent',
    summary: "The recipient page's acceptance of a CONSENT item's term; a browser is redirected back to the page",
    description:
      'Body (urlencoded from the page, or JSON): `accept` (the box, checked: true) and `termHash` (the SHA-256 of the term the page showed). ' +
      'CONSENT_ACCEPTED with type, version and hash (the address and user agent are kept as evidence beside the trail entry: sealed, shown to the organization in the item details and the trail export, never in a webhook) and the item VALIDATED. ' +
      '400 when the box is not checked; 409 when the term changed since the page was opened (reload and read it again) or the item is already resolved; 404 for an item not asked of this recipient.',
    auth: false,
    rawBody: true,
    pageForm: true,
    params: AnswerParams,
    responses: AnswerReplies,
    errors: [404, 409],
    async handle({ app, ctx, params, body }) {
      const { accept, termHash } = bodyOf(body);
      if (accept !== true && accept !== 'true' && accept !== 'on') {
        const refuse = refusalFor(ctx);
        const link = await openLink(app, params.token, refuse);
        if (isReply(link)) return link;
        return refuse(400, 'Não foi possível aceitar', CollectionMessages.consentNotChecked, await pageOf(app, params.token, link, { error: CollectionMessages.consentNotChecked }));
      }
      return answerItem(app, ctx, params.token, params.itemId, (ref, item) =>
        acceptConsent(app, { ...ref, itemId: item.itemId, termHash: typeof termHash === 'string' ? termHash : '', origin: originOf(ctx), userAgent: ctx.get('user-agent') || null }),
      );
    },
  }),
];
