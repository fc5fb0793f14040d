import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';
import type { CollectionCommand, FileOpinion } from './commands.ts';
import { entry, existing, itemOf, live, open, recipientOf, unresolved } from './decide-kit.ts';
import { OPERATOR_ITEM_STATUSES, type DocumentVerdict, type ItemStatus } from './enums.ts';
import { evolveCollection } from './evolve.ts';
import { COLLECTION_KINDS } from './kinds/index.ts';
import { CollectionMessages } from './messages.ts';
import type { CollectionModuleEvent } from './payloads.ts';
import { initialCollectionState, isAwaitingRecipient, isClosed, isNewSend, isResolved, messageOutcome, type CollectionState } from './state.ts';
import { validateDefinition } from './validate.ts';

const DAY_MS = 86_400_000;

/**
 * The completion that follows `events` when they leave every item resolved in a sent collection.
 * Completion is decided with the move that resolves the last item, so it is never missed nor doubled.
 */
function withCompletion(command: CollectionCommand, state: CollectionState, events: CollectionModuleEvent[]): CollectionModuleEvent[] {
  const after = events.reduce(evolveCollection, state);
  if (after.status !== 'SENT' && after.status !== 'IN_PROGRESS') return events;
  if (!after.items.every(isResolved)) return events;
  const itemsTotal = after.items.length;
  return [...events, entry('CollectionCompleted', command, after.collectionId!, {}, { itemsTotal, itemsResolved: itemsTotal })];
}

/** Where an opinion leaves an item: AUTOMATIC resolves by the verdict, REVIEW waits for the operator. */
function statusAfterOpinion(state: CollectionState, verdict: DocumentVerdict | null, byOperator: boolean): ItemStatus {
  if (verdict === null) return 'AWAITING_OPERATOR';
  if (state.mode === 'REVIEW' && !byOperator) return 'AWAITING_OPERATOR';
  if (verdict === 'VALIDO') return 'VALIDATED';
  if (verdict === 'INVALIDO') return 'REJECTED';
  return 'MANUAL_REVIEW';
}

/** Why a sandbox opinion outside sandbox mode leaves its item to the operator (recorded on ItemAssessed). */
export const SANDBOX_OPINION_HELD = 'Parecer de regras de sandbox (leitura por palavras-chave), que fora do modo sandbox não resolve o item: aguarda o operador.';

function opinionEvents(
  command: CollectionCommand & { itemId: string; opinion: FileOpinion; deployment?: 'sandbox' | 'production' },
  state: CollectionState,
  byOperator: boolean,
): CollectionModuleEvent[] {
  // A closed collection keeps what it had: a late analysis changes nothing.
  if (isClosed(state)) return [];
  const collectionId = live(state, command.organizationId);
  const item = itemOf(state, command.itemId);
  const { opinion } = command;
  const known = item.files.find((f) => f.registryDocumentId === opinion.registryDocumentId);
  // The same outcome delivered twice (a process manager's retry) is recorded once.
  if (known?.opinion && known.opinion.attempt === opinion.attempt && known.opinion.verdict === opinion.verdict) return [];
  const where = { itemId: item.itemId, recipientId: known?.recipientId ?? null };
  // A keyword match names no one: outside sandbox mode it informs, and the operator decides.
  const held = !byOperator && opinion.sandbox === true && command.deployment !== 'sandbox' && opinion.verdict !== null && !isResolved(item);
  // An item resolved meanwhile (waived, another file validated) only gets the file's opinion.
  const itemStatus = isResolved(item) ? item.status : held ? 'AWAITING_OPERATOR' : statusAfterOpinion(state, opinion.verdict, byOperator);
  if (opinion.verdict === null) {
    return [entry('ItemAwaitingOperator', command, collectionId, where, { registryDocumentId: opinion.registryDocumentId, reason: opinion.reason })];
  }
  const events = [entry('ItemAssessed', command, collectionId, where, { ...opinion, itemStatus, decidedByOperator: byOperator, ...(held ? { heldForOperator: SANDBOX_OPINION_HELD } : {}) })];
  if (itemStatus === 'REJECTED') {
    events.push(entry('ItemRejected', command, collectionId, where, { registryDocumentId: opinion.registryDocumentId, reason: opinion.reason, resendRequested: true }));
  }
  return withCompletion(command, state, events);
}

function decide(command: CollectionCommand, state: CollectionState): CollectionModuleEvent[] {
  switch (command.type) {
    case 'CreateCollection': {
      if (state.collectionId !== null) throw new DomainError('conflict', Messages.alreadyExists);
      const { definition, collectionId } = command;
      validateDefinition(definition);
      const created = entry(
        'CollectionCreated',
        command,
        collectionId,
        {},
        {
          registryId: definition.registryId,
          template: definition.template?.slug ?? null,
          templateVersion: definition.template?.version ?? null,
          items: definition.items.length,
          recipients: definition.recipients.length,
          mode: definition.mode,
          channel: definition.channel,
          ...(definition.contractDocumentId && { contractDocumentId: definition.contractDocumentId }),
          ...(command.intake && { origin: 'PUBLIC_FORM' as const, intake: command.intake }),
        },
        { definition },
      );
      if (!command.send) return [created];
      return [created, ...decide({ ...command, type: 'SendCollection' }, evolveCollection(state, created))];
    }
    case 'SendCollection': {
      const collectionId = open(state, command.organizationId);
      if (state.status !== 'DRAFT') throw new DomainError('conflict', CollectionMessages.alreadySent);
      const expiresAt = new Date(Date.parse(command.at) + state.expiryDays * DAY_MS).toISOString();
      // Every item already on file or waived: the collection is complete as soon as it leaves.
      return withCompletion(command, state, [entry('CollectionSent', command, collectionId, {}, { expiresAt })]);
    }
    case 'CancelCollection': {
      const collectionId = open(state, command.organizationId);
      return [entry('CollectionCanceled', command, collectionId, {}, { reason: command.reason })];
    }
    case 'AddRecipient': {
      const collectionId = open(state, command.organizationId);
      const { recipient } = command;
      if (state.recipients.some((r) => r.recipientId === recipient.recipientId)) throw new DomainError('conflict', Messages.alreadyExists);
      if (!recipient.itemIds.every((id) => state.items.some((i) => i.itemId === id))) throw new DomainError('invalid', CollectionMessages.unknownItemKey);
      if (!recipient.email && !recipient.phone) throw new DomainError('invalid', CollectionMessages.recipientWithoutContact);
      return [entry('RecipientAdded', command, collectionId, { recipientId: recipient.recipientId }, { itemIds: recipient.itemIds }, { recipient })];
    }
    case 'ReissueLink': {
      const collectionId = open(state, command.organizationId);
      const recipient = recipientOf(state, command.recipientId);
      const linkVersion = recipient.linkVersion + 1;
      return [entry('RecipientLinkReissued', command, collectionId, { recipientId: recipient.recipientId }, { linkVersion }, { linkHash: command.linkHash })];
    }
    case 'RecordRecipientOpened': {
      const collectionId = live(state, command.organizationId);
      const recipient = recipientOf(state, command.recipientId);
      // The first opening is the trail's RECIPIENT_OPENED; later visits of the page are not news.
      if (recipient.openedAt !== null) return [];
      return [entry('RecipientOpened', command, collectionId, { recipientId: recipient.recipientId }, { linkVersion: recipient.linkVersion })];
    }
    case 'SubmitItemDocument': {
      const collectionId = live(state, command.organizationId);
      const item = unresolved(itemOf(state, command.itemId));
      if (item.kind !== 'DOCUMENT' && item.kind !== 'CUSTOM') throw new DomainError('invalid', CollectionMessages.itemNotAFile);
      if (command.recipientId !== null && !recipientOf(state, command.recipientId).itemIds.includes(item.itemId)) {
        throw new DomainError('not_found', CollectionMessages.itemNotOfRecipient);
      }
      if (item.files.some((f) => f.registryDocumentId === command.registryDocumentId)) return [];
      const where = { itemId: item.itemId, recipientId: command.recipientId };
      return [entry('ItemSubmitted', command, collectionId, where, { registryDocumentId: command.registryDocumentId })];
    }
    case 'StartItemProcessing': {
      if (isClosed(state)) return [];
      const collectionId = live(state, command.organizationId);
      const item = itemOf(state, command.itemId);
      if (item.status !== 'SUBMITTED') return [];
      return [entry('ItemProcessingStarted', command, collectionId, { itemId: item.itemId }, { registryDocumentId: command.registryDocumentId })];
    }
    case 'AssessItem':
      return opinionEvents(command, state, false);
    case 'DecideItemDocument':
      return opinionEvents(command, state, true);
    case 'ReviewItem': {
      const collectionId = open(state, command.organizationId);
      const item = unresolved(itemOf(state, command.itemId));
      if (!OPERATOR_ITEM_STATUSES.includes(item.status)) throw new DomainError('conflict', CollectionMessages.itemNotAwaitingOperator);
      const where = { itemId: item.itemId };
      if (command.decision === 'APPROVE') {
        return withCompletion(command, state, [entry('ItemReviewed', command, collectionId, where, { decision: 'APPROVED', reason: command.reason })]);
      }
      if (!command.reason) throw new DomainError('invalid', CollectionMessages.rejectReasonRequired);
      const lastFile = item.files[item.files.length - 1]?.registryDocumentId ?? null;
      return [
        entry('ItemReviewed', command, collectionId, where, { decision: 'REJECTED', reason: command.reason }),
        entry('ItemRejected', command, collectionId, where, { registryDocumentId: lastFile, reason: command.reason, resendRequested: true }),
      ];
    }
    case 'WaiveItem': {
      const collectionId = open(state, command.organizationId);
      const item = unresolved(itemOf(state, command.itemId));
      return withCompletion(command, state, [entry('ItemWaived', command, collectionId, { itemId: item.itemId }, { reason: command.reason })]);
    }
    case 'RecordRecipientNotified': {
      const collectionId = existing(state, command.organizationId);
      const recipient = recipientOf(state, command.recipientId);
      if (!isNewSend(recipient, command.messageId, command.channel)) return [];
      const type = command.reminder ? 'RecipientReminded' : 'RecipientNotified';
      return [entry(type, command, collectionId, { recipientId: recipient.recipientId }, { messageId: command.messageId, channel: command.channel, provenance: command.provenance })];
    }
    case 'RecordMessageFailed': {
      const collectionId = existing(state, command.organizationId);
      const recipient = recipientOf(state, command.recipientId);
      // Recorded even after the message was sent: a copy the provider reported lost did not arrive.
      if (recipient.messageOutcomes.includes(messageOutcome('failed', command.messageId))) return [];
      return [
        entry(
          'RecipientMessageFailed',
          command,
          collectionId,
          { recipientId: recipient.recipientId },
          { messageId: command.messageId, error: command.error, ...(command.notSent ? { notSent: true as const } : {}), ...(command.provenance ? { provenance: command.provenance } : {}) },
        ),
      ];
    }
    case 'RecordMessageChannelFailed': {
      const collectionId = existing(state, command.organizationId);
      const recipient = recipientOf(state, command.recipientId);
      const { messageId, channel } = command;
      if (recipient.messageOutcomes.includes(messageOutcome('lost', messageId, channel)) || recipient.messageOutcomes.includes(messageOutcome('failed', messageId))) return [];
      return [entry('RecipientMessageFailed', command, collectionId, { recipientId: recipient.recipientId }, { messageId, channel, error: command.error, next: command.next })];
    }
    case 'ExpireCollection': {
      const collectionId = existing(state, command.organizationId);
      // Only a sent collection past its deadline with an item still waiting on a recipient expires.
      if (state.status !== 'SENT' && state.status !== 'IN_PROGRESS') return [];
      if (state.expiresAt === null || Date.parse(command.at) < Date.parse(state.expiresAt)) return [];
      if (!state.items.some(isAwaitingRecipient)) return [];
      const expiredItemIds = state.items.filter((i) => !isResolved(i)).map((i) => i.itemId);
      return [entry('CollectionExpired', command, collectionId, {}, { expiredItemIds })];
    }
    case 'LinkIntake': {
      // Any status: an intake is usually linked once the visitor has finished it.
      const collectionId = existing(state, command.organizationId);
      if (state.intake === null) throw new DomainError('conflict', CollectionMessages.notAnIntake);
      if (state.intake.status !== 'UNLINKED') throw new DomainError('conflict', CollectionMessages.intakeAlreadyLinked);
      return [entry('IntakeLinked', command, collectionId, {}, { registryId: state.registryId })];
    }
    default:
      for (const kind of COLLECTION_KINDS) {
        const events = kind.decide(command, state, withCompletion);
        if (events) return events;
      }
      throw new Error(`no part of the collection decider handles ${command.type}`);
  }
}

export const collectionDecider: Decider<CollectionCommand, CollectionModuleEvent, CollectionState> = {
  initialState: initialCollectionState,
  evolve: evolveCollection,
  decide,
};
