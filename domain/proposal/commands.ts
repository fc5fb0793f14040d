import type { Portfolio, Product, ProductKind } from '../catalog/product.ts';
import type { AnalysisKind, ChoiceBy, Contact, FirmTerms, IndicativeTerms, ParticipantRole, ProposalOrigin } from './events.ts';
import type { ChosenTerms } from './installment.ts';
import type { ProposalStatus } from './statuses.ts';

/** What every command names: the proposal, its tenant and the time (the domain reads no clock). */
interface Target {
  proposalId: string;
  organizationId: string;
  at: string;
}

export interface ParticipantInput {
  participantId: string;
  document: string;
  name: string;
  role: ParticipantRole;
  contact: Contact | null;
}

export type ProposalCommand =
  | (Target & {
      type: 'CreateProposal';
      userId: string;
      document: string;
      name: string;
      /** The product the key named (null when none): the decider refuses a wrong one. */
      product: Product | null;
      kind: ProductKind | null;
      origin: ProposalOrigin;
      portfolioId: string | null;
      portfolio: Portfolio | null;
      correspondentId: string | null;
      agentId: string | null;
      externalId: string | null;
      requestedAmountCents: number | null;
      requestedTermMonths: number | null;
      contact: Contact | null;
      participants: ParticipantInput[];
    })
  | (Target & { type: 'AddParticipant'; userId: string; participant: ParticipantInput })
  | (Target & { type: 'ChangeParticipant'; userId: string; participantId: string; change: Partial<Omit<ParticipantInput, 'participantId'>> })
  | (Target & { type: 'RemoveParticipant'; userId: string; participantId: string })
  | (Target & { type: 'ChangeStatus'; userId: string; status: ProposalStatus; reason: string | null })
  | (Target & { type: 'StartAnalysis'; executionId: string; kind: AnalysisKind; targetId: string })
  | (Target & { type: 'RecordDecision'; executionId: string; decision: 'APPROVED' | 'REJECTED'; step: string | null })
  | (Target & { type: 'SendIndicativeOffer'; executionId: string | null; offerId: string; terms: IndicativeTerms; linkHash: string })
  | (Target & { type: 'ReissueOfferLink'; userId: string; offerId: string; linkHash: string })
  | (Target & { type: 'ChooseOffer'; offerId: string; amountCents: number; termMonths: number; reason: string | null; by: ChoiceBy; userId: string | null; terms: ChosenTerms })
  | (Target & { type: 'ExpireOffer'; offerId: string })
  | (Target & { type: 'AwaitOperator'; executionId: string | null; reason: string | null })
  | (Target & { type: 'IssueFirmOffer'; executionId: string | null; offerId: string; terms: FirmTerms })
  | (Target & { type: 'CloseProposal'; executionId: string | null; status: 'ISSUED' | 'CANCELED'; date: string });
