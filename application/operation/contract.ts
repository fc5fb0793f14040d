import { createHash } from 'node:crypto';
import { collectionStream } from '../../domain/collection/events.ts';
import type { ContractFacts, ContractParty, ContractRole } from '../../domain/operation/contract.ts';
import type { ExecutionCommand, NextAction } from '../../domain/operation/execution-decider.ts';
import { OperationMessages } from '../../domain/operation/messages.ts';
import type { ParticipantRole } from '../../domain/proposal/events.ts';
import type { ProposalState } from '../../domain/proposal/state.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { findProduct } from '../../projections/catalog/queries.ts';
import { SYSTEM_ACTOR } from '../collection/actor.ts';
import { createCollection, type App } from '../collection/commands.ts';
import type { RecipientInput } from '../collection/definition.ts';
import { ensureRegistry, receiveDocument } from '../registry/intake-commands.ts';
import { collectionEnding, contactOf } from './opened-collections.ts';
import { renderContractPdf } from './contract-pdf.ts';

type OpenContract = Extract<NextAction, { type: 'OPEN_CONTRACT' }>;
type Party = ContractParty & Omit<RecipientInput, 'itemKeys'>;

/**
 * The contract collection's id, derived from the execution and its step: a retry after a crash
 * between creating the collection and recording it on the execution finds that collection
 * instead of opening a second one.
 */
export const contractCollectionId = (executionId: string, stepIndex: number) => createHash('sha256').update(`contract:${executionId}:${stepIndex}`).digest('hex').slice(0, 24);

const ROLES: Record<ParticipantRole, ContractRole> = { HOLDER: 'TITULAR', GUARANTOR: 'AVALISTA', PARTNER: 'SÓCIO', SPOUSE: 'CÔNJUGE' };

/** Who signs, in signing order: the customer, the proposal's participants (when the step asks), then the step's own signers. */
function partiesOf(proposal: ProposalState, action: OpenContract): Party[] {
  const created = proposal.created!;
  const customer: Party = { name: created.contact?.name?.trim() || created.name, role: 'CLIENTE', ...contactOf(created.contact) };
  const participants = action.step.includeParticipants
    ? proposal.participants.filter((p) => p.document !== created.document).map((p): Party => ({ name: p.name, role: ROLES[p.role], ...contactOf(p.contact) }))
    : [];
  const signers = action.step.signers.map((s): Party => ({ name: s.name, role: 'INTERVENIENTE', email: s.email, phone: s.phone }));
  return [customer, ...participants, ...signers];
}

/**
 * The CONTRACT_SIGNATURE step's work: the contract PDF rendered from the step's template and the
 * customer's choice, stored as a registry document of the proposal's subject, and a collection
 * (created by SYSTEM, sent) with ONE joint SIGNATURE item over that document, every party a
 * recipient, and `contractDocumentId` in its definition. Returns the command that records it.
 */
export async function openContract(app: App, proposal: ProposalState, executionId: string, action: OpenContract, at: string): Promise<ExecutionCommand> {
  const created = proposal.created!;
  const collectionId = contractCollectionId(executionId, action.stepIndex);
  const existing = (await app.store.readStream(collectionStream(collectionId), { maxCount: 1 }))[0];
  if (existing) {
    const contractDocumentId = (existing.data as { payload: { contractDocumentId: string } }).payload.contractDocumentId;
    return { type: 'RecordContractOpened', collectionId, contractDocumentId, at };
  }
  const chosen = proposal.offers.find((o) => o.offerId === action.chosen.offerId)?.chosen;
  if (!chosen) throw new DomainError('conflict', OperationMessages.contractWithoutChoice);
  const offer = proposal.offers.find((o) => o.offerId === action.chosen.offerId)!;
  const parties = partiesOf(proposal, action);
  const product = await findProduct(app.db, created.organizationId, created.productId);
  const facts: ContractFacts = {
    customer: { name: created.name, document: created.document, entityType: created.entityType },
    productName: product?.name ?? created.productName,
    model: offer.terms.model,
    terms: chosen.terms,
    parties: parties.map(({ name, role }) => ({ name, role })),
    date: new Date(at).toLocaleDateString('en-CA', { timeZone: 'America/Sao_Paulo' }),
  };
  const bytes = await renderContractPdf(action.step.template, facts, { title: action.step.title, at });
  const { organizationId } = created;
  const subject = { document: created.document, name: created.name, entityType: created.entityType };
  const { registryId } = await ensureRegistry(app, organizationId, subject, SYSTEM_ACTOR);
  const { registryDocumentId } = await receiveDocument(app, {
    organizationId,
    registryId,
    fileName: `contrato-${executionId}.pdf`,
    bytes,
    expectedType: null,
    source: null,
    actor: SYSTEM_ACTOR,
  });
  // The collection module adds the document's SHA-256, which every party's evidence names.
  const signature = { mode: 'JOINT' as const, flow: 'SIGNATURE' as const, ordered: action.step.ordered, registryDocumentId };
  await createCollection(
    app,
    { organizationId, userId: '', permissions: new Set() },
    {
      // The subject, not the registry id: the registry may be too new for the registry read model that an id is checked against.
      subject: { name: created.name, document: created.document },
      items: [{ key: 'contrato', kind: 'SIGNATURE', title: action.step.title, required: true, config: { signature } }],
      recipients: parties.map(({ name, email, phone }) => ({ name, email, phone })),
      message: `Contrato de ${facts.productName} para assinatura.`,
      send: true,
      expiryDays: action.step.expiryDays,
      contractDocumentId: registryDocumentId,
    },
    { actor: SYSTEM_ACTOR, collectionId },
  );
  return { type: 'RecordContractOpened', collectionId, contractDocumentId: registryDocumentId, at };
}

/**
 * What the contract's collection says so far, from its own stream (the process manager needs no
 * read model): signed (collection.signature.completed), canceled, expired, completed without the
 * signature (the item waived), or nothing yet (null).
 */
export async function contractOutcome(app: Pick<App, 'store'>, collectionId: string, at: string): Promise<ExecutionCommand | null> {
  const ending = await collectionEnding(app, collectionId);
  if (!ending) return null;
  switch (ending.kind) {
    case 'SIGNATURE_COMPLETED':
      return { type: 'RecordContractSigned', collectionId, provider: ending.provider, contentHash: ending.contentHash, at };
    case 'COMPLETED':
      return { type: 'RecordContractEnded', collectionId, outcome: 'UNSIGNED', reason: null, at };
    default:
      return { type: 'RecordContractEnded', collectionId, outcome: ending.kind, reason: ending.reason, at };
  }
}
