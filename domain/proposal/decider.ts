import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';
import type { ParticipantInput, ProposalCommand } from './commands.ts';
import type { IndicativeTerms, ParticipantData, ProposalEvent } from './events.ts';
import { ProposalMessages } from './messages.ts';
import { checkRequest, documentOf, within } from './rules.ts';
import { evolveProposal, initialProposalState, type OfferState, type ProposalState } from './state.ts';
import { isTerminal, MANUAL_MOVES, type ProposalStatus } from './statuses.ts';

type Target = { proposalId: string; organizationId: string; at: string };

/** Another organization's proposal is answered like an absent one. */
function existing(state: ProposalState, organizationId: string): ProposalState {
  if (!state.created || state.created.organizationId !== organizationId) throw new DomainError('not_found', Messages.proposalNotFound);
  return state;
}

/** Existing and still open: a terminal proposal takes no more writes. */
function open(state: ProposalState, organizationId: string): ProposalState {
  existing(state, organizationId);
  if (isTerminal(state.status)) throw new DomainError('conflict', ProposalMessages.proposalClosed);
  return state;
}

/** The status event a move needs, or none when the proposal is already there. */
function moveTo(state: ProposalState, t: Target, to: ProposalStatus, by: string, reason: string | null, executionId: string | null): ProposalEvent[] {
  if (state.status === to) return [];
  return [{ type: 'ProposalStatusChanged', data: { proposalId: t.proposalId, organizationId: t.organizationId, at: t.at, from: state.status, to, reason, by, executionId } }];
}

function participantOf(state: ProposalState, input: ParticipantInput): ParticipantData {
  const { digits, entityType } = documentOf(input.document);
  if (state.participants.some((p) => p.document === digits && p.participantId !== input.participantId)) throw new DomainError('conflict', ProposalMessages.participantAlreadyAdded);
  return { participantId: input.participantId, document: digits, entityType, name: input.name, role: input.role, contact: input.contact };
}

function offerOf(state: ProposalState, offerId: string): OfferState {
  const offer = state.offers.find((o) => o.offerId === offerId);
  if (!offer) throw new DomainError('not_found', ProposalMessages.offerNotFound);
  return offer;
}

/** An indicative offer the customer may still act on (choose, or get a new link for). */
function choosable(state: ProposalState, offerId: string, at: string): OfferState & { terms: IndicativeTerms } {
  const offer = offerOf(state, offerId);
  if (offer.kind !== 'INDICATIVE') throw new DomainError('conflict', ProposalMessages.offerNotChoosable);
  if (offer.chosen) throw new DomainError('conflict', Messages.offerAlreadyChosen);
  if (offer.round < state.round) throw new DomainError('conflict', ProposalMessages.offerSuperseded);
  const terms = offer.terms as IndicativeTerms;
  if (terms.validUntil < at) throw new DomainError('conflict', ProposalMessages.offerExpired);
  return { ...offer, terms };
}

/**
 * The offer a choice would be recorded on, after every refusal of the offer and its limits: the
 * application checks this before pricing the choice, so a choice out of range is told its limit
 * before anything is simulated; the decider checks it again on the stream it appends to.
 */
export function choiceOffer(state: ProposalState, choice: { organizationId: string; offerId: string; amountCents: number; termMonths: number; at: string }): OfferState & { terms: IndicativeTerms } {
  open(state, choice.organizationId);
  const offer = choosable(state, choice.offerId, choice.at);
  const { terms } = offer;
  within(choice.amountCents, terms.minAmountCents, terms.maxAmountCents, ProposalMessages.amountBelow, ProposalMessages.amountAbove);
  within(choice.termMonths, terms.minTermMonths, terms.maxTermMonths, ProposalMessages.termBelow, ProposalMessages.termAbove);
  return offer;
}

function decide(command: ProposalCommand, state: ProposalState): ProposalEvent[] {
  const { proposalId, organizationId, at } = command;
  const t = { proposalId, organizationId, at };
  switch (command.type) {
    case 'CreateProposal': {
      if (state.created) return [];
      const { digits, entityType } = documentOf(command.document);
      const { product, portfolio } = command;
      checkRequest(product, entityType, command.requestedAmountCents, command.requestedTermMonths);
      if (command.portfolioId !== null && (!portfolio || !portfolio.enabled)) throw new DomainError('invalid', ProposalMessages.invalidPortfolio);
      const created: ProposalEvent = {
        type: 'ProposalCreated',
        data: {
          ...t,
          document: digits,
          entityType,
          name: command.name,
          productId: product!.productId,
          productKey: product!.key,
          productName: product!.name,
          fixedAmountCents: product!.fixedAmountCents,
          kind: command.kind ?? product!.kind,
          origin: command.origin,
          portfolioId: portfolio?.portfolioId ?? null,
          portfolioName: portfolio?.name ?? null,
          correspondentId: command.correspondentId,
          agentId: command.agentId,
          externalId: command.externalId,
          requestedAmountCents: command.requestedAmountCents,
          requestedTermMonths: command.requestedTermMonths,
          contact: command.contact,
          createdAt: at,
          userId: command.userId,
        },
      };
      const participants: ProposalEvent[] = [];
      let folded = evolveProposal(state, created);
      for (const input of command.participants) {
        const added: ProposalEvent = { type: 'ParticipantAdded', data: { ...t, ...participantOf(folded, input), userId: command.userId } };
        folded = evolveProposal(folded, added);
        participants.push(added);
      }
      return [created, ...participants];
    }
    case 'AddParticipant':
      open(state, organizationId);
      return [{ type: 'ParticipantAdded', data: { ...t, ...participantOf(state, command.participant), userId: command.userId } }];
    case 'ChangeParticipant': {
      open(state, organizationId);
      const current = state.participants.find((p) => p.participantId === command.participantId);
      if (!current) throw new DomainError('not_found', ProposalMessages.participantNotFound);
      const next = participantOf(state, { ...current, ...command.change, participantId: current.participantId });
      if (JSON.stringify(next) === JSON.stringify(current)) return [];
      return [{ type: 'ParticipantChanged', data: { ...t, ...next, userId: command.userId } }];
    }
    case 'RemoveParticipant':
      open(state, organizationId);
      if (!state.participants.some((p) => p.participantId === command.participantId)) throw new DomainError('not_found', ProposalMessages.participantNotFound);
      return [{ type: 'ParticipantRemoved', data: { ...t, participantId: command.participantId, userId: command.userId } }];
    case 'ChangeStatus': {
      existing(state, organizationId);
      if (state.status === command.status) return [];
      if (!MANUAL_MOVES[state.status].includes(command.status)) throw new DomainError('conflict', ProposalMessages.statusMove(state.status, command.status));
      return moveTo(state, t, command.status, command.userId, command.reason, null);
    }
    case 'StartAnalysis': {
      open(state, organizationId);
      if (state.executions.some((e) => e.executionId === command.executionId)) return [];
      const { executionId, kind, targetId } = command;
      const started: ProposalEvent = {
        type: 'AnalysisStarted',
        data: { ...t, executionId, kind, targetId, operationId: kind === 'OPERATION' ? targetId : null, policyId: kind === 'REPORT' ? targetId : null },
      };
      return [started, ...moveTo(state, t, 'IN_ANALYSIS', 'PIPELINE', null, executionId)];
    }
    case 'RecordDecision': {
      open(state, organizationId);
      const { executionId, decision, step } = command;
      const decided: ProposalEvent = { type: 'ProposalDecided', data: { ...t, executionId, decision, step } };
      return decision === 'REJECTED' ? [decided, ...moveTo(state, t, 'REJECTED', 'PIPELINE', step, executionId)] : [decided];
    }
    case 'SendIndicativeOffer': {
      open(state, organizationId);
      if (state.offers.some((o) => o.offerId === command.offerId)) return [];
      const { terms } = command;
      if (terms.minAmountCents > terms.maxAmountCents || terms.minTermMonths > terms.maxTermMonths) throw new DomainError('invalid', ProposalMessages.invalidOfferRange);
      const sent: ProposalEvent = {
        type: 'IndicativeOfferSent',
        data: { ...t, ...terms, executionId: command.executionId, offerId: command.offerId, round: state.round + 1, linkHash: command.linkHash },
      };
      return [sent, ...moveTo(state, t, 'WAITING_CUSTOMER', 'PIPELINE', null, command.executionId)];
    }
    case 'ReissueOfferLink': {
      open(state, organizationId);
      const offer = choosable(state, command.offerId, at);
      return [{ type: 'OfferLinkReissued', data: { ...t, offerId: offer.offerId, linkHash: command.linkHash, previousLinkHash: offer.linkHash!, userId: command.userId } }];
    }
    case 'ChooseOffer': {
      const offer = choiceOffer(state, command);
      const { amountCents, termMonths, reason, by, userId, terms } = command;
      return [{ type: 'OfferChosen', data: { ...t, executionId: offer.executionId, offerId: offer.offerId, round: offer.round, amountCents, termMonths, reason, by, userId, terms } }];
    }
    case 'ExpireOffer': {
      // The job's command: anything that is no longer an offer waiting past its deadline decides nothing.
      existing(state, organizationId);
      const offer = state.offers.find((o) => o.offerId === command.offerId);
      if (!offer || offer.kind !== 'INDICATIVE' || offer.chosen || offer.expiredAt || offer.round < state.round || isTerminal(state.status)) return [];
      const { validUntil } = offer.terms;
      if (validUntil >= at) return [];
      const expired: ProposalEvent = { type: 'OfferExpired', data: { ...t, executionId: offer.executionId, offerId: offer.offerId, round: offer.round, validUntil } };
      const waiting = state.status === 'WAITING_CUSTOMER';
      return [expired, ...(waiting ? moveTo(state, t, 'EXPIRED', 'SCHEDULER', ProposalMessages.expiredWithoutChoice, offer.executionId) : [])];
    }
    case 'AwaitOperator':
      open(state, organizationId);
      return moveTo(state, t, 'WAITING_OPERATOR', 'PIPELINE', command.reason, command.executionId);
    case 'IssueFirmOffer': {
      open(state, organizationId);
      if (state.offers.some((o) => o.offerId === command.offerId)) return [];
      const issued: ProposalEvent = {
        type: 'FirmOfferIssued',
        data: { ...t, ...command.terms, executionId: command.executionId, offerId: command.offerId, round: Math.max(state.round, 1) },
      };
      return [issued, ...moveTo(state, t, 'OFFER_ISSUED', 'PIPELINE', null, command.executionId)];
    }
    case 'CloseProposal': {
      existing(state, organizationId);
      const { executionId, status, date } = command;
      if (state.closed) {
        const same = state.closed.executionId === executionId && state.closed.status === status && state.closed.date === date;
        if (same) return [];
        throw new DomainError('conflict', ProposalMessages.alreadyClosed);
      }
      open(state, organizationId);
      return [{ type: 'ProposalClosed', data: { ...t, executionId, status, date } }, ...moveTo(state, t, status, 'PIPELINE', null, executionId)];
    }
  }
}

export const proposalDecider: Decider<ProposalCommand, ProposalEvent, ProposalState> = {
  initialState: initialProposalState,
  evolve: evolveProposal,
  decide,
};
