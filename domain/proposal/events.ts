import type { MessageChannel } from '../messaging/events.ts';
import type { AmortizationModel, DecimalRate, EntityType } from '../pricing/terms.ts';
import type { ProductKind } from '../catalog/product.ts';
import type { DomainEvent } from '../shared/decider.ts';
import type { ChosenTerms } from './installment.ts';
import type { ProposalStatus } from './statuses.ts';

/** `proposal-<id>`: a proposal with its participants, executions, offers, rounds, choices and links. */
export const PROPOSAL_CATEGORY = 'proposal';
export const proposalStream = (proposalId: string) => `${PROPOSAL_CATEGORY}-${proposalId}`;

export type ProposalOrigin = 'PUBLIC_FORM' | 'OPERATOR' | 'API' | 'BATCH' | 'CRM' | 'CHANNEL';
export const PROPOSAL_ORIGINS: readonly ProposalOrigin[] = ['PUBLIC_FORM', 'OPERATOR', 'API', 'BATCH', 'CRM', 'CHANNEL'];

export type ParticipantRole = 'HOLDER' | 'GUARANTOR' | 'PARTNER' | 'SPOUSE';
export const PARTICIPANT_ROLES: readonly ParticipantRole[] = ['HOLDER', 'GUARANTOR', 'PARTNER', 'SPOUSE'];

export interface Contact {
  name: string | null;
  email: string | null;
  phone: string | null;
  /** This person's own channel order for the offer's message, over the organization's (docs/messaging.md); absent: the organization's. */
  channelOrder?: MessageChannel[];
}

/** Every event names its proposal and tenant, so projections and process managers read it alone. */
interface Base {
  proposalId: string;
  organizationId: string;
  at: string;
}

export interface ParticipantData {
  participantId: string;
  document: string;
  entityType: EntityType;
  name: string;
  role: ParticipantRole;
  contact: Contact | null;
}

/** The terms of an indicative offer: the range the customer may choose within. */
export interface IndicativeTerms {
  minAmountCents: number;
  maxAmountCents: number;
  minTermMonths: number;
  maxTermMonths: number;
  rateBpsYear: number;
  rate: DecimalRate | null;
  model: AmortizationModel;
  validUntil: string;
}

export interface FirmTerms {
  amountCents: number;
  termMonths: number;
  rateBpsYear: number;
  rate: DecimalRate | null;
  model: AmortizationModel;
  installmentCents: number;
  validUntil: string;
}

export type ChoiceBy = 'CUSTOMER' | 'OPERATOR';
export type AnalysisKind = 'OPERATION' | 'REPORT';

export type ProposalCreated = DomainEvent<
  'ProposalCreated',
  Base & {
    document: string;
    entityType: EntityType;
    name: string;
    productId: string;
    productKey: string;
    productName: string;
    /** The product's fixed amount when it has one: what the dashboard counts instead of the request. */
    fixedAmountCents: number | null;
    kind: ProductKind;
    origin: ProposalOrigin;
    portfolioId: string | null;
    portfolioName: string | null;
    correspondentId: string | null;
    agentId: string | null;
    externalId: string | null;
    requestedAmountCents: number | null;
    requestedTermMonths: number | null;
    contact: Contact | null;
    createdAt: string;
    userId: string;
  }
>;
export type ParticipantAdded = DomainEvent<'ParticipantAdded', Base & ParticipantData & { userId: string }>;
export type ParticipantChanged = DomainEvent<'ParticipantChanged', Base & ParticipantData & { userId: string }>;
export type ParticipantRemoved = DomainEvent<'ParticipantRemoved', Base & { participantId: string; userId: string }>;
/** `by` is the user who asked, PIPELINE for moves a process manager made, SCHEDULER for the offer expiry job. */
export type ProposalStatusChanged = DomainEvent<'ProposalStatusChanged', Base & { from: ProposalStatus; to: ProposalStatus; reason: string | null; by: string; executionId: string | null }>;
export type AnalysisStarted = DomainEvent<'AnalysisStarted', Base & { executionId: string; kind: AnalysisKind; targetId: string; operationId: string | null; policyId: string | null }>;
export type ProposalDecided = DomainEvent<'ProposalDecided', Base & { executionId: string; decision: 'APPROVED' | 'REJECTED'; step: string | null }>;
/** Only the sha256 of the customer's link token is kept: the raw token is returned once. */
export type IndicativeOfferSent = DomainEvent<'IndicativeOfferSent', Base & IndicativeTerms & { executionId: string | null; offerId: string; round: number; linkHash: string }>;
export type OfferLinkReissued = DomainEvent<'OfferLinkReissued', Base & { offerId: string; linkHash: string; previousLinkHash: string; userId: string }>;
/** `terms`: the choice priced by the pricing module's simulation; absent on choices recorded before it was stored. */
export type OfferChosen = DomainEvent<
  'OfferChosen',
  Base & { executionId: string | null; offerId: string; round: number; amountCents: number; termMonths: number; reason: string | null; by: ChoiceBy; userId: string | null; terms?: ChosenTerms }
>;
/** An indicative offer past its validUntil without a choice, marked by the expiry job. */
export type OfferExpired = DomainEvent<'OfferExpired', Base & { executionId: string | null; offerId: string; round: number; validUntil: string }>;
export type FirmOfferIssued = DomainEvent<'FirmOfferIssued', Base & FirmTerms & { executionId: string | null; offerId: string; round: number }>;
export type ProposalClosed = DomainEvent<'ProposalClosed', Base & { executionId: string | null; status: 'ISSUED' | 'CANCELED'; date: string }>;

export type ProposalEvent =
  | ProposalCreated
  | ParticipantAdded
  | ParticipantChanged
  | ParticipantRemoved
  | ProposalStatusChanged
  | AnalysisStarted
  | ProposalDecided
  | IndicativeOfferSent
  | OfferLinkReissued
  | OfferChosen
  | OfferExpired
  | FirmOfferIssued
  | ProposalClosed;

export const ProposalEventTypes = {
  created: 'ProposalCreated',
  participantAdded: 'ParticipantAdded',
  participantChanged: 'ParticipantChanged',
  participantRemoved: 'ParticipantRemoved',
  statusChanged: 'ProposalStatusChanged',
  analysisStarted: 'AnalysisStarted',
  decided: 'ProposalDecided',
  indicativeOfferSent: 'IndicativeOfferSent',
  offerLinkReissued: 'OfferLinkReissued',
  offerChosen: 'OfferChosen',
  offerExpired: 'OfferExpired',
  firmOfferIssued: 'FirmOfferIssued',
  closed: 'ProposalClosed',
} as const satisfies Record<string, ProposalEvent['type']>;
