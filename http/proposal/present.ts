import type { Contact, FirmTerms, IndicativeTerms, ProposalEvent } from '../../domain/proposal/events.ts';
import { evolveProposal, initialProposalState, type OfferState, type ProposalState } from '../../domain/proposal/state.ts';
import { formatBRL } from '../../domain/shared/money.ts';

/** One line of the timeline per event, in Portuguese, for the operator's screen. */
function describe(event: ProposalEvent): string {
  switch (event.type) {
    case 'ProposalCreated':
      return `Proposta criada para ${event.data.productName}`;
    case 'ParticipantAdded':
      return `Participante adicionado: ${event.data.name} (${event.data.role})`;
    case 'ParticipantChanged':
      return `Participante alterado: ${event.data.name} (${event.data.role})`;
    case 'ParticipantRemoved':
      return 'Participante removido';
    case 'ProposalStatusChanged':
      return `Status alterado de ${event.data.from} para ${event.data.to}${event.data.reason ? `: ${event.data.reason}` : ''}`;
    case 'AnalysisStarted':
      return `Análise iniciada (${event.data.kind} ${event.data.targetId})`;
    case 'ProposalDecided':
      return `Decisão: ${event.data.decision}${event.data.step ? ` na etapa ${event.data.step}` : ''}`;
    case 'IndicativeOfferSent':
      return `Oferta indicativa enviada (rodada ${event.data.round}): ${formatBRL(event.data.minAmountCents)} a ${formatBRL(event.data.maxAmountCents)}`;
    case 'OfferLinkReissued':
      return 'Novo link da oferta enviado; o anterior deixou de abrir';
    case 'OfferChosen':
      return `Oferta escolhida ${event.data.by === 'CUSTOMER' ? 'pelo cliente' : 'pelo operador'}: ${formatBRL(event.data.amountCents)} em ${event.data.termMonths} meses`;
    case 'OfferExpired':
      return `Oferta indicativa expirada sem escolha (rodada ${event.data.round})`;
    case 'FirmOfferIssued':
      return `Oferta firme emitida: ${formatBRL(event.data.amountCents)} em ${event.data.termMonths} meses`;
    case 'ProposalClosed':
      return `Proposta encerrada como ${event.data.status} em ${event.data.date}`;
  }
}

export function presentOffer(offer: OfferState) {
  const { model, rateBpsYear, rate, validUntil } = offer.terms;
  const range = offer.kind === 'INDICATIVE' ? (offer.terms as IndicativeTerms) : null;
  const firm = offer.kind === 'FIRM' ? (offer.terms as FirmTerms) : null;
  return {
    id: offer.offerId,
    kind: offer.kind,
    status: firm ? ('ISSUED' as const) : offer.chosen ? ('CHOSEN' as const) : offer.expiredAt ? ('EXPIRED' as const) : ('SENT' as const),
    round: offer.round,
    executionId: offer.executionId,
    sentAt: offer.sentAt,
    validUntil,
    model,
    rateBpsYear,
    rate,
    ...(range && { minAmountCents: range.minAmountCents, maxAmountCents: range.maxAmountCents, minTermMonths: range.minTermMonths, maxTermMonths: range.maxTermMonths }),
    ...(firm && { amountCents: firm.amountCents, termMonths: firm.termMonths, installmentCents: firm.installmentCents }),
    chosen: offer.chosen && {
      amountCents: offer.chosen.amountCents,
      termMonths: offer.chosen.termMonths,
      reason: offer.chosen.reason,
      by: offer.chosen.by,
      at: offer.chosen.at,
      terms: offer.chosen.terms,
    },
  };
}

/** A contact with its three fields, also when erasure left it `{}` (an erased object reads empty). */
// channelOrder only when the person has one: absent, the organization's order applies.
const contactView = (contact: Contact | null) =>
  contact && { name: contact.name ?? null, email: contact.email ?? null, phone: contact.phone ?? null, ...(contact.channelOrder ? { channelOrder: contact.channelOrder } : {}) };

function presentParticipants(state: ProposalState) {
  return state.participants.map(({ participantId, contact, ...p }) => ({ id: participantId, ...p, contact: contactView(contact) }));
}

/** The detail: the stream folded, so a proposal read right after a write shows the write. */
export function presentProposal(events: readonly ProposalEvent[]) {
  const state = events.reduce(evolveProposal, initialProposalState());
  const c = state.created!;
  const rounds = [...new Set(state.offers.map((o) => o.round))].sort((a, b) => a - b);
  return {
    id: c.proposalId,
    createdAt: c.createdAt,
    document: c.document,
    name: c.name,
    entityType: c.entityType,
    kind: c.kind,
    origin: c.origin,
    correspondentId: c.correspondentId,
    agentId: c.agentId,
    externalId: c.externalId,
    productId: c.productId,
    productKey: c.productKey,
    productName: c.productName,
    portfolioId: c.portfolioId,
    portfolioName: c.portfolioName,
    status: state.status,
    statusChangedAt: state.statusChangedAt!,
    requestedAmountCents: c.requestedAmountCents,
    requestedTermMonths: c.requestedTermMonths,
    contact: contactView(c.contact),
    participants: presentParticipants(state),
    executions: state.executions,
    rounds: rounds.map((round) => ({ round, offers: state.offers.filter((o) => o.round === round).map(presentOffer) })),
    closed: state.closed,
    timeline: events.map((event) => ({ at: event.data.at, type: event.type, description: describe(event) })),
  };
}
