import { chooseOffer } from '../../application/proposal/commands.ts';
import { openOfferLink, type OpenedLink } from '../../application/proposal/offer-link.ts';
import { chosenTerms, monthlyRate } from '../../domain/proposal/installment.ts';
import { isTerminal } from '../../domain/proposal/statuses.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import type { AppContext } from '../../application/context.ts';
import { route, type Reply, type RouteSpec } from '../route.ts';
import { chosenPage, messagePage, offerPage } from './offer-html.ts';

const html = (status: number, text: string): Reply => ({ status, raw: Buffer.from(text), headers: { 'content-type': 'text/html; charset=utf-8' } });
const gone = () => html(404, messagePage('Link indisponível', 'Este link não abre mais: ele foi substituído por um novo ou não existe. Use o link mais recente que você recebeu.'));
const STATUS_OF: Partial<Record<DomainError['kind'], number>> = { invalid: 400, not_found: 404, conflict: 409 };

/** Why a link that still exists cannot take a choice now, or null when it can. */
function closedReason(link: OpenedLink, now: string): Reply | null {
  if (link.offer.chosen) return html(409, messagePage('Oferta já escolhida', Messages.offerAlreadyChosen));
  if (isTerminal(link.state.status) || link.offer.terms.validUntil < now) return html(410, messagePage('Oferta encerrada', 'Esta oferta não está mais disponível.'));
  return null;
}

function renderOffer(token: string, link: OpenedLink, status = 200, error?: string): Reply {
  const t = link.offer.terms;
  const i = monthlyRate(t.rateBpsYear, t.rate);
  const example = chosenTerms(t.maxAmountCents, t.maxTermMonths, t.model, t.rateBpsYear, t.rate);
  const yearly = i.plus(1).pow(12).minus(1).times(100).toDecimalPlaces(4).toNumber();
  const c = link.state.created!;
  return html(status, offerPage({ token, customerName: c.name, productName: c.productName, terms: t, monthlyRatePercent: example.monthlyRatePercent, yearlyRatePercent: yearly, example, error }));
}

/** "1.234,56", "1234,56" or "1234.56" reais as cents; null when it is not an amount. */
export function centsOf(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const plain = text.trim().replace(/^R\$\s*/, '');
  const normalized = plain.includes(',') ? plain.replace(/\./g, '').replace(',', '.') : plain;
  if (!/^\d{1,12}(\.\d{1,2})?$/.test(normalized)) return null;
  return Math.round(Number(normalized) * 100);
}

async function choose(app: AppContext, token: string, form: Record<string, unknown>): Promise<Reply> {
  const link = await openOfferLink(app, token);
  if (!link) return gone();
  const closed = closedReason(link, app.clock.now().toISOString());
  if (closed) return closed;
  const amountCents = centsOf(form.amount);
  const termMonths = Number(form.termMonths);
  if (amountCents === null || !Number.isInteger(termMonths)) return renderOffer(token, link, 400, 'Informe um valor e um prazo válidos.');
  const { organizationId, proposalId } = link.state.created!;
  try {
    await chooseOffer(app, { organizationId, userId: null }, { proposalId, offerId: link.offer.offerId, amountCents, termMonths, by: 'CUSTOMER' });
  } catch (error) {
    if (!(error instanceof DomainError) || !STATUS_OF[error.kind]) throw error;
    return error.kind === 'invalid' ? renderOffer(token, link, 400, error.message) : html(STATUS_OF[error.kind]!, messagePage('Não foi possível registrar', error.message));
  }
  const t = link.offer.terms;
  return html(200, chosenPage(link.state.created!.name, chosenTerms(amountCents, termMonths, t.model, t.rateBpsYear, t.rate)));
}

/**
 * The customer's side: public (the link token is the authorization), Portuguese HTML. Every
 * answer is a page, errors included, since a person reads it in a browser.
 */
export const offerPageRoutes: RouteSpec[] = [
  route({
    method: 'get',
    path: '/oferta/:token',
    summary: 'Public offer page (HTML): the offer, a simulation, and the form to choose',
    description: 'Opened from the link sent to the customer. A replaced or unknown link answers a 404 page; a chosen offer 409; an ended one 410.',
    auth: false,
    files: ['text/html'],
    errors: [404, 409, 410],
    async handle({ app, ctx }) {
      const token = String(ctx.params.token);
      const link = await openOfferLink(app, token);
      if (!link) return gone();
      return closedReason(link, app.clock.now().toISOString()) ?? renderOffer(token, link);
    },
  }),
  route({
    method: 'post',
    path: '/oferta/:token/escolha',
    summary: "The offer page's form: records the customer's choice (amount in reais, termMonths) and answers a page",
    auth: false,
    rawBody: true,
    files: ['text/html'],
    errors: [404, 409, 410],
    async handle({ app, ctx, body }) {
      return choose(app, String(ctx.params.token), (body ?? {}) as Record<string, unknown>);
    },
  }),
];
