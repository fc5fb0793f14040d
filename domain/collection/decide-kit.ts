import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';
import type { CollectionCommand } from './commands.ts';
import { COLLECTION_ACTIONS, type CollectionEventData } from './events.ts';
import { CollectionMessages } from './messages.ts';
import type { CollectionModuleEvent, CollectionPayloads } from './payloads.ts';
import { isClosed, isResolved, type CollectionState, type ItemState } from './state.ts';

/** The pieces every part of the collection decider builds on: trail entries and the usual refusals. */
type Type = keyof CollectionPayloads;
const ACTION = Object.fromEntries(COLLECTION_ACTIONS.map((a) => [a.type, a.action])) as Record<Type, CollectionEventData['action']>;

/**
 * One trail entry: the envelope every collection event carries, from the command that caused it.
 * `where.recipientId` names the recipient the entry is about; left out, it is the recipient who
 * acted, if one did (the last signature's SIGNATURE_COMPLETED, a completion their answer caused),
 * so a subscriber always learns which person moved the collection.
 */
export function entry<T extends Type>(
  type: T,
  command: CollectionCommand,
  collectionId: string,
  where: { itemId?: string | null; recipientId?: string | null },
  payload: CollectionPayloads[T],
  extra: object = {},
): CollectionModuleEvent {
  const data: CollectionEventData<CollectionPayloads[T]> = {
    organizationId: command.organizationId,
    collectionId,
    itemId: where.itemId ?? null,
    recipientId: where.recipientId ?? (command.actor.actorType === 'RECIPIENT' ? command.actor.actorId : null),
    action: ACTION[type],
    actorType: command.actor.actorType,
    actorId: command.actor.actorId,
    occurredAt: command.at,
    payload,
  };
  return { type, data: { ...data, ...extra } } as CollectionModuleEvent;
}

/** Another organization's collection is answered like an absent one. */
export function existing(state: CollectionState, organizationId: string): string {
  if (state.collectionId === null || state.organizationId !== organizationId) throw new DomainError('not_found', Messages.collectionNotFound);
  return state.collectionId;
}

export function open(state: CollectionState, organizationId: string): string {
  const collectionId = existing(state, organizationId);
  if (isClosed(state)) throw new DomainError('conflict', Messages.collectionClosed);
  return collectionId;
}

/** Open and already sent: what a recipient or the analysis acts on. */
export function live(state: CollectionState, organizationId: string): string {
  const collectionId = open(state, organizationId);
  if (state.status === 'DRAFT') throw new DomainError('conflict', CollectionMessages.notSent);
  return collectionId;
}

export function itemOf(state: CollectionState, itemId: string): ItemState {
  const item = state.items.find((i) => i.itemId === itemId);
  if (!item) throw new DomainError('not_found', CollectionMessages.itemNotFound);
  return item;
}

export function recipientOf(state: CollectionState, recipientId: string) {
  const recipient = state.recipients.find((r) => r.recipientId === recipientId);
  if (!recipient) throw new DomainError('not_found', CollectionMessages.recipientNotFound);
  return recipient;
}

export function unresolved(item: ItemState): ItemState {
  if (isResolved(item)) throw new DomainError('conflict', CollectionMessages.itemResolved);
  return item;
}
