import type { ProposalCreated, ParticipantData, IndicativeTerms, FirmTerms, ChoiceBy, AnalysisKind, ProposalEvent } from './events.ts';
import { headlineTerms, type ChosenTerms } from './installment.ts';
import type { ProposalStatus } from './statuses.ts';

export interface OfferState {
  offerId: string;
  kind: 'INDICATIVE' | 'FIRM';
  round: number;
  executionId: string | null;
  /** INDICATIVE: the range; FIRM: the issued terms. */
  terms: IndicativeTerms | FirmTerms;
  linkHash: string | null;
  sentAt: string;
  /** When the expiry job found it past validUntil without a choice. */
  expiredAt: string | null;
  chosen: { amountCents: number; termMonths: number; reason: string | null; by: ChoiceBy; userId: string | null; at: string; terms: ChosenTerms } | null;
}

export interface ExecutionLink {
  executionId: string;
  kind: AnalysisKind;
  targetId: string;
  startedAt: string;
  decision: 'APPROVED' | 'REJECTED' | null;
  step: string | null;
}

export interface ProposalState {
  created: ProposalCreated['data'] | null;
  status: ProposalStatus;
  statusChangedAt: string | null;
  participants: ParticipantData[];
  executions: ExecutionLink[];
  offers: OfferState[];
  round: number;
  closed: { executionId: string | null; status: 'ISSUED' | 'CANCELED'; date: string } | null;
}

export const initialProposalState = (): ProposalState => ({
  created: null,
  status: 'DRAFT',
  statusChangedAt: null,
  participants: [],
  executions: [],
  offers: [],
  round: 0,
  closed: null,
});

const withOffer = (state: ProposalState, offerId: string, change: (offer: OfferState) => OfferState): ProposalState => ({
  ...state,
  offers: state.offers.map((o) => (o.offerId === offerId ? change(o) : o)),
});

export function evolveProposal(state: ProposalState, event: ProposalEvent): ProposalState {
  switch (event.type) {
    case 'ProposalCreated':
      return { ...state, created: event.data, status: 'DRAFT', statusChangedAt: event.data.createdAt };
    case 'ParticipantAdded': {
      const { participantId, document, entityType, name, role, contact } = event.data;
      return { ...state, participants: [...state.participants, { participantId, document, entityType, name, role, contact }] };
    }
    case 'ParticipantChanged': {
      const { participantId, document, entityType, name, role, contact } = event.data;
      const changed = { participantId, document, entityType, name, role, contact };
      return { ...state, participants: state.participants.map((p) => (p.participantId === participantId ? changed : p)) };
    }
    case 'ParticipantRemoved':
      return { ...state, participants: state.participants.filter((p) => p.participantId !== event.data.participantId) };
    case 'ProposalStatusChanged':
      return { ...state, status: event.data.to, statusChangedAt: event.data.at };
    case 'AnalysisStarted': {
      const { executionId, kind, targetId, at } = event.data;
      return { ...state, executions: [...state.executions, { executionId, kind, targetId, startedAt: at, decision: null, step: null }] };
    }
    case 'ProposalDecided': {
      const { executionId, decision, step } = event.data;
      return { ...state, executions: state.executions.map((e) => (e.executionId === executionId ? { ...e, decision, step } : e)) };
    }
    case 'IndicativeOfferSent': {
      const { offerId, round, executionId, linkHash, at, minAmountCents, maxAmountCents, minTermMonths, maxTermMonths, rateBpsYear, rate, model, validUntil } = event.data;
      const terms: IndicativeTerms = { minAmountCents, maxAmountCents, minTermMonths, maxTermMonths, rateBpsYear, rate, model, validUntil };
      const offer: OfferState = { offerId, kind: 'INDICATIVE', round, executionId, terms, linkHash, sentAt: at, expiredAt: null, chosen: null };
      return { ...state, round, offers: [...state.offers, offer] };
    }
    case 'OfferLinkReissued':
      return withOffer(state, event.data.offerId, (o) => ({ ...o, linkHash: event.data.linkHash }));
    case 'OfferChosen': {
      const { amountCents, termMonths, reason, by, userId, at } = event.data;
      return withOffer(state, event.data.offerId, (o) => {
        // A choice recorded before its simulation was stored is read with the headline formula it was shown with.
        const terms = event.data.terms ?? headlineTerms(amountCents, termMonths, o.terms.model, o.terms.rateBpsYear, o.terms.rate);
        return { ...o, chosen: { amountCents, termMonths, reason, by, userId, at, terms } };
      });
    }
    case 'OfferExpired':
      return withOffer(state, event.data.offerId, (o) => ({ ...o, expiredAt: event.data.at }));
    case 'FirmOfferIssued': {
      const { offerId, round, executionId, at, amountCents, termMonths, rateBpsYear, rate, model, installmentCents, validUntil } = event.data;
      const terms: FirmTerms = { amountCents, termMonths, rateBpsYear, rate, model, installmentCents, validUntil };
      return { ...state, round, offers: [...state.offers, { offerId, kind: 'FIRM', round, executionId, terms, linkHash: null, sentAt: at, expiredAt: null, chosen: null }] };
    }
    case 'ProposalClosed': {
      const { executionId, status, date } = event.data;
      return { ...state, closed: { executionId, status, date } };
    }
    default:
      return state;
  }
}
