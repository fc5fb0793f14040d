import type { CollectionModuleEvent } from './payloads.ts';
import { COLLECTION_KINDS } from './kinds/index.ts';
import { addFile, advance, isResolved, messageOutcome, newRecipient, withItem, withRecipient, type CollectionState, type ItemState } from './state.ts';

export function evolveCollection(state: CollectionState, event: CollectionModuleEvent): CollectionState {
  const { data } = event;
  const at = data.occurredAt;
  switch (event.type) {
    case 'CollectionCreated': {
      // An erased definition reads as {}: the collection keeps its envelope facts and nothing personal.
      const { items = [], recipients = [], ...rest } = event.data.definition;
      const itemStates: ItemState[] = items.map((item) => ({
        ...item,
        status: item.reuse ? 'ALREADY_ON_FILE' : 'PENDING',
        files: [],
        resendReason: null,
        resolvedAt: item.reuse ? at : null,
        details: {},
      }));
      return {
        ...state,
        ...rest,
        collectionId: data.collectionId,
        organizationId: data.organizationId,
        createdBy: { actorType: data.actorType, actorId: data.actorId },
        // From the trail payload, not the definition: an erased definition must not turn an intake into a linked collection.
        origin: event.data.payload.origin ?? null,
        intake: event.data.payload.intake ? { status: event.data.payload.intake, linkedAt: null, linkedBy: null } : null,
        status: 'DRAFT',
        items: itemStates,
        recipients: recipients.map((r) => newRecipient(r, itemStates)),
        createdAt: at,
      };
    }
    case 'CollectionSent':
      return { ...state, status: 'SENT', sentAt: at, expiresAt: event.data.payload.expiresAt };
    case 'CollectionCanceled':
      return { ...state, status: 'CANCELED', canceledAt: at, cancelReason: event.data.payload.reason };
    case 'CollectionCompleted':
      return { ...state, status: 'COMPLETED', completedAt: at };
    case 'CollectionExpired': {
      const expired = new Set(event.data.payload.expiredItemIds);
      const items = state.items.map((item): ItemState => (expired.has(item.itemId) ? { ...item, status: 'EXPIRED' } : item));
      return { ...state, status: 'EXPIRED', expiredAt: at, items };
    }
    case 'ItemSubmitted': {
      const file = { registryDocumentId: event.data.payload.registryDocumentId, recipientId: data.recipientId, submittedAt: at, opinion: null };
      const next = withItem(state, data.itemId, (item) => ({ ...addFile(item, file), status: 'SUBMITTED', resendReason: null }));
      return withRecipient({ ...next, status: next.status === 'SENT' ? 'IN_PROGRESS' : next.status }, data.recipientId, (r) => ({ ...r, activity: advance(r.activity, 'IN_PROGRESS') }));
    }
    case 'ItemProcessingStarted':
      return withItem(state, data.itemId, (item) => ({ ...item, status: 'PROCESSING' }));
    case 'ItemAssessed': {
      const { itemStatus, decidedByOperator: _, heldForOperator: _held, ...opinion } = event.data.payload;
      const file = { registryDocumentId: opinion.registryDocumentId, recipientId: data.recipientId, submittedAt: at, opinion: null };
      return withItem(state, data.itemId, (item) => {
        const withFile = addFile(item, file);
        const files = withFile.files.map((f) => (f.registryDocumentId === opinion.registryDocumentId ? { ...f, opinion } : f));
        return { ...withFile, files, status: itemStatus, resolvedAt: isResolved({ status: itemStatus }) ? at : item.resolvedAt };
      });
    }
    case 'ItemAwaitingOperator':
      return withItem(state, data.itemId, (item) => ({ ...item, status: 'AWAITING_OPERATOR' }));
    case 'ItemRejected':
      return withItem(state, data.itemId, (item) => ({ ...item, status: 'REJECTED', resendReason: event.data.payload.reason }));
    case 'ItemReviewed':
      return event.data.payload.decision === 'APPROVED' ? withItem(state, data.itemId, (item) => ({ ...item, status: 'VALIDATED', resolvedAt: at })) : state;
    case 'ItemWaived':
      return withItem(state, data.itemId, (item) => ({ ...item, status: 'WAIVED', resolvedAt: at }));
    case 'RecipientAdded':
      if (!event.data.recipient.recipientId) return state;
      return { ...state, recipients: [...state.recipients, newRecipient(event.data.recipient, state.items)] };
    case 'RecipientLinkReissued':
      return withRecipient(state, data.recipientId, (r) => ({ ...r, linkVersion: event.data.payload.linkVersion, linkHash: event.data.linkHash }));
    case 'RecipientOpened':
      return withRecipient(state, data.recipientId, (r) => ({ ...r, activity: advance(r.activity, 'OPENED'), openedAt: r.openedAt ?? at }));
    case 'RecipientNotified':
    case 'RecipientReminded': {
      const { messageId, channel } = event.data.payload;
      return withRecipient(state, data.recipientId, (r) => {
        // A fallback channel's send is the same reminder again, not another one.
        const first = !r.messageIds.includes(messageId);
        return {
          ...r,
          activity: advance(r.activity, 'DELIVERED'),
          messageIds: first ? [...r.messageIds, messageId] : r.messageIds,
          messageOutcomes: [...r.messageOutcomes, messageOutcome('sent', messageId, channel)],
          lastNotifiedAt: at,
          reminders: r.reminders + (first && event.type === 'RecipientReminded' ? 1 : 0),
        };
      });
    }
    case 'IntakeLinked':
      return { ...state, intake: { status: 'LINKED', linkedAt: at, linkedBy: { actorType: data.actorType, actorId: data.actorId } } };
    case 'RecipientMessageFailed': {
      const { messageId, channel } = event.data.payload;
      // One channel lost: the next one is being tried (or the message's own outcome follows).
      if (channel) return withRecipient(state, data.recipientId, (r) => ({ ...r, messageOutcomes: [...r.messageOutcomes, messageOutcome('lost', messageId, channel)] }));
      return withRecipient(state, data.recipientId, (r) => ({
        ...r,
        activity: advance(r.activity, 'FAILED'),
        messageIds: r.messageIds.includes(messageId) ? r.messageIds : [...r.messageIds, messageId],
        messageOutcomes: [...r.messageOutcomes, messageOutcome('failed', messageId)],
      }));
    }
    default:
      // Forms, consents, identity checks and signatures evolve in their kind's file; a download or a
      // view changes nothing.
      for (const kind of COLLECTION_KINDS) {
        const next = kind.evolve(state, event);
        if (next) return next;
      }
      return state;
  }
}
