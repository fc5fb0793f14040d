import Type from 'typebox';
import { addParticipant, changeParticipant, changeStatus, chooseOffer, createProposal, reissueOfferLink, removeParticipant } from '../../application/proposal/commands.ts';
import { toDomainEvents } from '../../application/command-handler.ts';
import { offerUrl } from '../../application/proposal/offer-message.ts';
import { replyAfterWrite } from '../../application/read-your-writes.ts';
import type { AppContext } from '../../application/context.ts';
import { proposalStream, type ProposalEvent } from '../../domain/proposal/events.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { CATALOG_PROJECTION } from '../../projections/catalog/projection.ts';
import { PROPOSAL_PROJECTION } from '../../projections/proposal/projection.ts';
import { listProposals } from '../../projections/proposal/queries.ts';
import { Gates } from '../gates.ts';
import { route, type RouteTable } from '../route.ts';
import { offerPageRoutes } from './offer-page.ts';
import { presentProposal } from './present.ts';
import {
  ChooseBody,
  ChooseSchema,
  CreateProposalBody,
  OfferParams,
  ParticipantBody,
  ParticipantParams,
  ParticipantPatch,
  ParticipantSchema,
  ProposalDetailSchema,
  ProposalListQuery,
  ProposalPageSchema,
  ProposalParams,
  ResendSchema,
  StatusBody,
} from './schemas.ts';

/**
 * The proposal as its stream tells it, for this organization only (another's is absent). The
 * list is the projection's; one proposal is read from its stream so a write shows at once.
 */
export async function presentedProposal(app: AppContext, organizationId: string, proposalId: string) {
  const events = toDomainEvents<ProposalEvent>(await app.store.readStream(proposalStream(proposalId)));
  if (events[0]?.type !== 'ProposalCreated' || events[0].data.organizationId !== organizationId) throw new DomainError('not_found', Messages.proposalNotFound);
  return presentProposal(events);
}

/** Where a customer opens an offer: the public page, outside the bearer-token routes. */

export const proposalRoutes: RouteTable = {
  module: 'proposal',
  description: 'Proposals: from a credit request to the offer the customer chose',
  routes: [
    route({
      method: 'post',
      path: '/v1/proposals',
      summary: 'Create a proposal in DRAFT (a new one every time, even for the same document)',
      gate: Gates.proposalsOperate,
      body: CreateProposalBody,
      responses: { 201: ProposalDetailSchema },
      // The product and the settings come from the catalog's read model.
      reads: [CATALOG_PROJECTION],
      async handle({ app, principal, body }) {
        return replyAfterWrite(app, principal, await createProposal(app, principal, body), ({ events }) => ({ status: 201, body: presentProposal(events) }));
      },
    }),
    route({
      method: 'get',
      path: '/v1/proposals',
      summary: "The organization's proposals, newest first",
      gate: Gates.proposalsOperate,
      query: ProposalListQuery,
      responses: { 200: ProposalPageSchema },
      reads: [PROPOSAL_PROJECTION],
      async handle({ app, principal, query }) {
        return listProposals(app.db, principal.organizationId, { ...query, status: query.status?.split(',') });
      },
    }),
    route({
      method: 'get',
      path: '/v1/proposals/:id',
      summary: 'A proposal: status, offers by round, linked executions, participants, timeline',
      gate: Gates.proposalsOperate,
      params: ProposalParams,
      responses: { 200: ProposalDetailSchema },
      async handle({ app, principal, params }) {
        return presentedProposal(app, principal.organizationId, params.id);
      },
    }),
    route({
      method: 'patch',
      path: '/v1/proposals/:id/status',
      summary: 'Set the status by hand (the same status changes nothing; a move the state machine does not allow is 409)',
      gate: Gates.proposalsOperate,
      params: ProposalParams,
      body: StatusBody,
      responses: { 200: ProposalDetailSchema },
      errors: [404, 409],
      async handle({ app, principal, params, body }) {
        const written = await changeStatus(app, principal, params.id, body.status, body.reason ?? null);
        return replyAfterWrite(app, principal, written, () => presentedProposal(app, principal.organizationId, params.id));
      },
    }),
    route({
      method: 'get',
      path: '/v1/proposals/:id/participants',
      summary: "A proposal's participants",
      gate: Gates.proposalsOperate,
      params: ProposalParams,
      responses: { 200: Type.Array(ParticipantSchema) },
      async handle({ app, principal, params }) {
        return (await presentedProposal(app, principal.organizationId, params.id)).participants;
      },
    }),
    route({
      method: 'post',
      path: '/v1/proposals/:id/participants',
      summary: 'Add a participant (holder, guarantor, partner or spouse)',
      gate: Gates.proposalsOperate,
      params: ProposalParams,
      body: ParticipantBody,
      responses: { 201: ParticipantSchema },
      errors: [404, 409],
      async handle({ app, principal, params, body }) {
        return replyAfterWrite(app, principal, await addParticipant(app, principal, params.id, body), async ({ participantId }) => {
          const proposal = await presentedProposal(app, principal.organizationId, params.id);
          return { status: 201, body: proposal.participants.find((p) => p.id === participantId) };
        });
      },
    }),
    route({
      method: 'patch',
      path: '/v1/proposals/:id/participants/:participantId',
      summary: 'Change a participant (only the fields sent)',
      gate: Gates.proposalsOperate,
      params: ParticipantParams,
      body: ParticipantPatch,
      responses: { 200: ParticipantSchema },
      errors: [404, 409],
      async handle({ app, principal, params, body }) {
        const written = await changeParticipant(app, principal, params.id, params.participantId, body);
        return replyAfterWrite(app, principal, written, async () => (await presentedProposal(app, principal.organizationId, params.id)).participants.find((p) => p.id === params.participantId));
      },
    }),
    route({
      method: 'delete',
      path: '/v1/proposals/:id/participants/:participantId',
      summary: 'Remove a participant; replies with the remaining ones',
      gate: Gates.proposalsOperate,
      params: ParticipantParams,
      responses: { 200: Type.Array(ParticipantSchema) },
      errors: [404, 409],
      async handle({ app, principal, params }) {
        const written = await removeParticipant(app, principal, params.id, params.participantId);
        return replyAfterWrite(app, principal, written, async () => (await presentedProposal(app, principal.organizationId, params.id)).participants);
      },
    }),
    route({
      method: 'post',
      path: '/v1/proposals/:id/offers/:offerId/choose',
      summary: "Record the customer's choice within an indicative offer's limits (the second choice is 409)",
      gate: Gates.proposalsOperate,
      params: OfferParams,
      body: ChooseBody,
      responses: { 200: ChooseSchema },
      errors: [404, 409],
      async handle({ app, principal, params, body }) {
        const written = await chooseOffer(app, principal, { proposalId: params.id, offerId: params.offerId, ...body, by: 'OPERATOR' });
        return replyAfterWrite(app, principal, written, async () => {
          const proposal = await presentedProposal(app, principal.organizationId, params.id);
          const offer = proposal.rounds.flatMap((r) => r.offers).find((o) => o.id === params.offerId)!;
          return { proposalId: params.id, offer, chosen: offer.chosen! };
        });
      },
    }),
    route({
      method: 'post',
      path: '/v1/proposals/:id/offers/:offerId/resend',
      summary: "A new customer link for an offer, sent to the proposal's contact like the first; the previous one stops opening. The raw token is returned only here.",
      gate: Gates.proposalsOperate,
      params: OfferParams,
      responses: { 200: ResendSchema },
      errors: [404, 409],
      async handle({ app, principal, params }) {
        const written = await reissueOfferLink(app, principal, params.id, params.offerId);
        // The new link opens through the read model for a customer, who has no session of ours to wait on: it must open as soon as it is handed out.
        await app.readYourWrites([PROPOSAL_PROJECTION], written.position);
        return replyAfterWrite(app, principal, written, ({ linkToken, messageId }) => ({ offerId: params.offerId, linkToken, url: offerUrl(app, linkToken), messageId }));
      },
    }),
    ...offerPageRoutes,
  ],
};
