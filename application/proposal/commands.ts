import { randomBytes } from 'node:crypto';
import type { ProductKind } from '../../domain/catalog/product.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { validChannelOrder } from '../../domain/messaging/settings-decider.ts';
import type { ProposalCommand } from '../../domain/proposal/commands.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { choiceOffer, proposalDecider } from '../../domain/proposal/decider.ts';
import { proposalStream, type ProposalEvent, type AnalysisKind, type ChoiceBy, type Contact, type ParticipantRole, type ProposalOrigin } from '../../domain/proposal/events.ts';
import { firstInstallmentCents, monthlyRate } from '../../domain/proposal/installment.ts';
import type { ProposalState } from '../../domain/proposal/state.ts';
import type { AmortizationModel, DecimalRate } from '../../domain/pricing/terms.ts';
import type { Position } from '../../platform/eventstore/port.ts';
import { findPortfolio, findProductByKey } from '../../projections/catalog/queries.ts';
import { handleCommand, loadState, newStream, type Written } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { priceChoice } from './choice.ts';
import { sendOfferLink } from './offer-message.ts';
import { hashLinkToken } from '../../platform/link-token.ts';

type App = Pick<AppContext, 'store' | 'ids' | 'clock'>;
type Caller = Pick<Principal, 'organizationId' | 'userId'>;
type Command = ProposalCommand extends infer C ? (C extends { type: infer T } ? Omit<C, 'proposalId' | 'organizationId' | 'at'> & { type: T } : never) : never;

/** A command's result with its events, which the creation and the offer build their replies from. */
type Ran = Written<ProposalState> & { events: ProposalEvent[] };

/** Everything a command needs beyond its own fields: the stream, the tenant, the time. */
async function run(app: App, organizationId: string, proposalId: string, command: Command, at?: string, loaded?: LoadedProposal): Promise<Ran> {
  const full = { ...command, proposalId, organizationId, at: at ?? app.clock.now().toISOString() } as ProposalCommand;
  const { position, state, events } = await handleCommand(app.store, proposalStream(proposalId), proposalDecider, full, { loaded });
  return { position, state, events };
}

/** A customer link: the raw token goes to the customer once; the stream keeps only its hash. */
function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashLinkToken(token) };
}

type ContactInput = { [K in 'name' | 'email' | 'phone']?: Contact[K] | null } & { channelOrder?: string[] | null };
/**
 * Absent contact fields are stored as null, so every reader sees the same shape; a channel order
 * only when one is given (validChannelOrder), so the events of contacts without one stay as they were.
 */
function contactOf(input: ContactInput | null | undefined): Contact | null {
  if (!input) return null;
  const { channelOrder } = input;
  if (channelOrder != null && !validChannelOrder(channelOrder)) throw new DomainError('invalid', MessagingMessages.invalidChannelOrder);
  return { name: input.name ?? null, email: input.email ?? null, phone: input.phone ?? null, ...(channelOrder ? { channelOrder } : {}) };
}

export interface ParticipantBody {
  document: string;
  name: string;
  role: ParticipantRole;
  contact?: ContactInput | null;
}

export interface CreateProposalInput {
  document: string;
  name: string;
  productKey: string;
  kind?: ProductKind;
  origin?: ProposalOrigin;
  portfolioId?: string;
  correspondentId?: string;
  agentId?: string;
  externalId?: string;
  requestedAmountCents?: number;
  requestedTermMonths?: number;
  contact?: ContactInput;
  participants?: ParticipantBody[];
}

/** The new proposal's id, where it was written, and its events (the whole stream: the reply is built from them). */
export async function createProposal(
  app: App & Pick<AppContext, 'db'>,
  caller: Caller,
  input: CreateProposalInput,
  // A process that opens a proposal for something of its own (a completed collection) names the
  // id, so that a replay of its step finds the proposal instead of opening a second one.
  options: { proposalId?: string } = {},
): Promise<{ proposalId: string; position: Position | null; events: ProposalEvent[] }> {
  const proposalId = options.proposalId ?? app.ids.objectId();
  const [product, portfolio] = await Promise.all([
    findProductByKey(app.db, caller.organizationId, input.productKey),
    input.portfolioId ? findPortfolio(app.db, caller.organizationId, input.portfolioId) : null,
  ]);
  // A replayed step names an id that may exist already: only then is the stream read first.
  const loaded = options.proposalId ? undefined : newStream(proposalDecider);
  const { position, events } = await run(
    app,
    caller.organizationId,
    proposalId,
    {
      type: 'CreateProposal',
      userId: caller.userId,
      document: input.document,
      name: input.name,
      product,
      kind: input.kind ?? null,
      origin: input.origin ?? 'API',
      portfolioId: input.portfolioId ?? null,
      portfolio,
      correspondentId: input.correspondentId ?? null,
      agentId: input.agentId ?? null,
      externalId: input.externalId ?? null,
      requestedAmountCents: input.requestedAmountCents ?? null,
      requestedTermMonths: input.requestedTermMonths ?? null,
      contact: contactOf(input.contact),
      participants: (input.participants ?? []).map((p) => ({ ...p, contact: contactOf(p.contact), participantId: app.ids.objectId() })),
    },
    undefined,
    loaded,
  );
  return { proposalId, position, events };
}

export async function addParticipant(app: App, caller: Caller, proposalId: string, body: ParticipantBody): Promise<Written<ProposalState> & { participantId: string }> {
  const participantId = app.ids.objectId();
  const participant = { ...body, contact: contactOf(body.contact), participantId };
  return { participantId, ...(await run(app, caller.organizationId, proposalId, { type: 'AddParticipant', userId: caller.userId, participant })) };
}

export function changeParticipant(app: App, caller: Caller, proposalId: string, participantId: string, body: Partial<ParticipantBody>): Promise<Written<ProposalState>> {
  const { contact, ...rest } = body;
  const change = contact === undefined ? rest : { ...rest, contact: contactOf(contact) };
  return run(app, caller.organizationId, proposalId, { type: 'ChangeParticipant', userId: caller.userId, participantId, change });
}

export function removeParticipant(app: App, caller: Caller, proposalId: string, participantId: string): Promise<Written<ProposalState>> {
  return run(app, caller.organizationId, proposalId, { type: 'RemoveParticipant', userId: caller.userId, participantId });
}

export function changeStatus(app: App, caller: Caller, proposalId: string, status: ProposalState['status'], reason: string | null): Promise<Written<ProposalState>> {
  return run(app, caller.organizationId, proposalId, { type: 'ChangeStatus', userId: caller.userId, status, reason });
}

/** The pipeline's side: ids of the proposal, tenant and execution, and when it happened. */
interface PipelineStep {
  organizationId: string;
  proposalId: string;
  executionId: string;
  at?: string;
}

export function startAnalysis(app: App, input: PipelineStep & { kind: AnalysisKind; targetId: string }): Promise<Written<ProposalState>> {
  return run(app, input.organizationId, input.proposalId, { type: 'StartAnalysis', executionId: input.executionId, kind: input.kind, targetId: input.targetId }, input.at);
}

/** `loaded`: the proposal as the caller just read it (readProposal), decided on without reading it again. */
export function recordDecision(app: App, input: PipelineStep & { decision: 'APPROVED' | 'REJECTED'; step: string | null }, loaded?: LoadedProposal): Promise<Written<ProposalState>> {
  return run(app, input.organizationId, input.proposalId, { type: 'RecordDecision', executionId: input.executionId, decision: input.decision, step: input.step }, input.at, loaded);
}

export interface OfferPricing {
  rateBpsYear: number;
  rate?: DecimalRate | null;
  model: AmortizationModel;
  validUntil: string;
}

/** The offer is recorded, then its link sent to the proposal's contact (offer-message.ts). */
export async function sendIndicativeOffer(
  app: App & Pick<AppContext, 'db' | 'config'>,
  input: PipelineStep & { offer: OfferPricing & { minAmountCents: number; maxAmountCents: number; minTermMonths: number; maxTermMonths: number } },
): Promise<{ offerId: string; linkToken: string; position: Position | null }> {
  const offerId = app.ids.objectId();
  const link = newLinkToken();
  const terms = { ...input.offer, rate: input.offer.rate ?? null };
  const { position, state, events } = await run(
    app,
    input.organizationId,
    input.proposalId,
    { type: 'SendIndicativeOffer', executionId: input.executionId, offerId, terms, linkHash: link.hash },
    input.at,
  );
  // Only the raw token opens the page and only its hash is stored: the link is sent now or never.
  if (events.length) await sendOfferLink(app, state, offerId, link);
  return { offerId, linkToken: link.token, position };
}

/** A new customer link for an offer, sent to the proposal's contact; the previous one stops opening. */
export async function reissueOfferLink(
  app: App & Pick<AppContext, 'db' | 'config'>,
  caller: Caller,
  proposalId: string,
  offerId: string,
): Promise<{ linkToken: string; position: Position | null; messageId: string | null }> {
  const link = newLinkToken();
  const { position, state } = await run(app, caller.organizationId, proposalId, { type: 'ReissueOfferLink', userId: caller.userId, offerId, linkHash: link.hash });
  return { linkToken: link.token, position, messageId: await sendOfferLink(app, state, offerId, link) };
}

/**
 * An operator (userId) or the customer on the offer page (userId null). The offer's refusals and
 * limits are checked before the choice is priced, so an amount out of range is told its limit
 * first; the priced terms are stored with the choice.
 */
export async function chooseOffer(
  app: App & Pick<AppContext, 'db'>,
  chooser: { organizationId: string; userId: string | null },
  input: { proposalId: string; offerId: string; amountCents: number; termMonths: number; reason?: string | null; by: ChoiceBy },
): Promise<Written<ProposalState>> {
  const { offerId, amountCents, termMonths, by } = input;
  const at = app.clock.now().toISOString();
  const state = await loadProposal(app, input.proposalId);
  const offer = choiceOffer(state, { organizationId: chooser.organizationId, offerId, amountCents, termMonths, at });
  const terms = await priceChoice(app, state, offer.terms, { amountCents, termMonths, at });
  return run(app, chooser.organizationId, input.proposalId, { type: 'ChooseOffer', offerId, amountCents, termMonths, reason: input.reason ?? null, by, userId: chooser.userId, terms }, at);
}

/** The expiry job: the offer past its deadline without a choice; the proposal waiting on it expires. */
export function expireOffer(app: App, input: { organizationId: string; proposalId: string; offerId: string; at: string }): Promise<Written<ProposalState>> {
  return run(app, input.organizationId, input.proposalId, { type: 'ExpireOffer', offerId: input.offerId }, input.at);
}

export function awaitOperator(app: App, input: PipelineStep & { reason: string | null }): Promise<Written<ProposalState>> {
  return run(app, input.organizationId, input.proposalId, { type: 'AwaitOperator', executionId: input.executionId, reason: input.reason }, input.at);
}

export async function issueFirmOffer(
  app: App,
  input: PipelineStep & OfferPricing & { amountCents: number; termMonths: number; installmentCents?: number },
): Promise<{ offerId: string; position: Position | null; state: ProposalState }> {
  const offerId = app.ids.objectId();
  const { amountCents, termMonths, rateBpsYear, model, validUntil } = input;
  const rate = input.rate ?? null;
  // A caller with the pricing module's schedule passes its installment; else the headline formula.
  const installmentCents = input.installmentCents ?? firstInstallmentCents(amountCents, termMonths, model, monthlyRate(rateBpsYear, rate));
  const terms = { amountCents, termMonths, rateBpsYear, rate, model, validUntil, installmentCents };
  const written = await run(app, input.organizationId, input.proposalId, { type: 'IssueFirmOffer', executionId: input.executionId, offerId, terms }, input.at);
  return { offerId, ...written };
}

/** The lender's system closed the execution: issued or canceled on `date` (YYYY-MM-DD). */
export function closeProposal(app: App, input: PipelineStep & { status: 'ISSUED' | 'CANCELED'; date: string }): Promise<Written<ProposalState>> {
  return run(app, input.organizationId, input.proposalId, { type: 'CloseProposal', executionId: input.executionId, status: input.status, date: input.date }, input.at);
}

export type LoadedProposal = { state: ProposalState; revision: bigint };

/** The proposal with the revision it was read at, for a command decided on it (handleCommand's loaded). */
export function readProposal(app: Pick<AppContext, 'store'>, proposalId: string): Promise<LoadedProposal> {
  return loadState(app.store, proposalStream(proposalId), proposalDecider);
}

export async function loadProposal(app: Pick<AppContext, 'store'>, proposalId: string): Promise<ProposalState> {
  return (await readProposal(app, proposalId)).state;
}
