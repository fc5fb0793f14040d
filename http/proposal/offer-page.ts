import { chooseOffer } from '../../application/proposal/commands.ts';
import { openOfferLink, type OpenedLink } from '../../application/proposal/offer-link.ts';
import { priceChoice } from '../../application/proposal/choice.ts';
import { isTerminal } from '../../domain/proposal/statuses.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import type { AppContext } from '../../application/context.ts';
import { readFileSync } from 'node:fs';
import type { Context } from 'koa';
import Type from 'typebox';
import { ProposalMessages } from '../../domain/proposal/messages.ts';
import { PAGE_FORM_BODY_LIMIT, route, type Reply, type RouteSpec } from '../route.ts';
import { chosenPage, messagePage, offerPage } from './offer-html.ts';

const html = (status: number, text: string): Reply => ({ status, raw: Buffer.from(text), headers: { 'content-type': 'text/html; charset=utf-8' } });
const STATUS_OF: Partial<Record<DomainError['kind'], number>> = { invalid: 400, not_found: 404, conflict: 409 };

/**
 * A refusal: a page for a browser (it asks for HTML), the API's `{code, message}` for anything
 * else, so scripts and monitors read the same error shape as on every other route.
 */
type Refuse = (status: number, title: string, message: string, page?: string) => Reply;
const refusalFor =
  (ctx: Context): Refuse =>
  (status, title, message, page) =>
    ctx.accepts('json', 'html') === 'html' ? html(status, page ?? messagePage(title, message)) : { status, body: { code: status, message } };

/** Why a link that still exists cannot take a choice now, or null when it can. */
function closedReason(link: OpenedLink, now: string, refuse: Refuse): Reply | null {
  if (link.offer.chosen) return refuse(409, 'Oferta já escolhida', Messages.offerAlreadyChosen);
  if (isTerminal(link.state.status) || link.offer.terms.validUntil < now) return refuse(409, 'Oferta encerrada', ProposalMessages.offerUnavailable);
  return null;
}

/** The page with a worked example: the largest amount and term, priced as a choice made now would be. */
async function offerHtml(app: AppContext, token: string, link: OpenedLink, error?: string): Promise<string> {
  const t = link.offer.terms;
  const example = await priceChoice(app, link.state, t, { amountCents: t.maxAmountCents, termMonths: t.maxTermMonths, at: app.clock.now().toISOString() });
  return offerPage({ token, customerName: link.state.created!.name, productName: link.state.created!.productName, terms: t, example, error });
}

const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: 'the link token the customer received' }) });

/** "1.234,56", "1234,56" or "1234.56" reais as cents; null when it is not an amount. */
function centsOf(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const plain = text.trim().replace(/^R\$\s*/, '');
  const normalized = plain.includes(',') ? plain.replace(/\./g, '').replace(',', '.') : plain;
  if (!/^\d{1,12}(\.\d{1,2})?$/.test(normalized)) return null;
  return Math.round(Number(normalized) * 100);
}

/** The offer of the link while it may take a choice, or the refusal. */
async function openChoice(app: AppContext, token: string, refuse: Refuse): Promise<OpenedLink | Reply> {
  const link = await openOfferLink(app, token);
  if (!link) return refuse(404, 'Link indisponível', ProposalMessages.offerLinkGone);
  return closedReason(link, app.clock.now().toISOString(), refuse) ?? link;
}

const isRefusal = (value: OpenedLink | Reply): value is Reply => 'status' in value;

async function choose(app: AppContext, token: string, form: Record<string, unknown>, refuse: Refuse): Promise<Reply> {
  const link = await openChoice(app, token, refuse);
  if (isRefusal(link)) return link;
  const amountCents = centsOf(form.amount);
  const termMonths = Number(form.termMonths);
  if (amountCents === null || !Number.isInteger(termMonths)) return refuse(400, '', ProposalMessages.invalidChoiceForm, await offerHtml(app, token, link, ProposalMessages.invalidChoiceForm));
  const { organizationId, proposalId } = link.state.created!;
  let state;
  try {
    ({ state } = await chooseOffer(app, { organizationId, userId: null }, { proposalId, offerId: link.offer.offerId, amountCents, termMonths, by: 'CUSTOMER' }));
  } catch (error) {
    if (!(error instanceof DomainError) || !STATUS_OF[error.kind]) throw error;
    const page = error.kind === 'invalid' ? await offerHtml(app, token, link, error.message) : undefined;
    return refuse(STATUS_OF[error.kind]!, 'Não foi possível registrar', error.message, page);
  }
  const chosen = state.offers.find((o) => o.offerId === link.offer.offerId)!.chosen!;
  return html(200, chosenPage(link.state.created!.name, chosen.terms));
}

/**
 * The customer's side: public (the link token is the authorization), Portuguese HTML. Every
 * answer is a page, errors included, since a person reads it in a browser.
 */
/** The offer page's one script, read once. */
const SIMULATION_SCRIPT = readFileSync(new URL('./assets/simulacao.js', import.meta.url));

export const offerPageRoutes: RouteSpec[] = [
  route({
    method: 'get',
    path: '/oferta/assets/simulacao.js',
    summary: "The offer page's script: the live estimate of the first installment (a file, since the page's CSP runs no inline script)",
    auth: false,
    files: ['text/javascript'],
    async handle() {
      return { status: 200, raw: SIMULATION_SCRIPT, headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=3600' } };
    },
  }),
  route({
    method: 'get',
    path: '/oferta/:token',
    summary: 'Public offer page (HTML): the offer, a simulation, and the form to choose',
    description:
      'Opened from the link sent to the customer. A replaced or unknown link is 404; a chosen or ended offer 409. Errors are pages for a browser (Accept: text/html), the error body otherwise.',
    auth: false,
    files: ['text/html'],
    params: TokenParams,
    errors: [404, 409],
    async handle({ app, ctx, params }) {
      const refuse = refusalFor(ctx);
      const link = await openOfferLink(app, params.token);
      if (!link) return refuse(404, 'Link indisponível', ProposalMessages.offerLinkGone);
      return closedReason(link, app.clock.now().toISOString(), refuse) ?? html(200, await offerHtml(app, params.token, link));
    },
  }),
  route({
    method: 'post',
    path: '/oferta/:token/escolha',
    summary: "The offer page's form: records the customer's choice (amount in reais, termMonths) and answers a page",
    auth: false,
    rawBody: true,
    pageForm: true,
    // An amount and a term: a few bytes.
    bodyLimit: PAGE_FORM_BODY_LIMIT,
    files: ['text/html'],
    params: TokenParams,
    errors: [404, 409],
    // A gone, chosen or ended offer is refused before a byte of the body is read.
    async before({ app, ctx, params }) {
      const link = await openChoice(app, params.token, refusalFor(ctx));
      return isRefusal(link) ? link : undefined;
    },
    async handle({ app, ctx, params, body }) {
      const form = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
      return choose(app, params.token, form, refusalFor(ctx));
    },
  }),
];
