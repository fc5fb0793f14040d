import type { MessageChannel } from '../messaging/events.ts';
import type { Actor, FileOpinion } from './commands.ts';
import type { CollectionDefinition, ItemDefinition, RecipientDefinition } from './definition.ts';
import { CLOSED_COLLECTION_STATUSES, RESOLVED_ITEM_STATUSES, type CollectionOrigin, type CollectionStatus, type IntakeStatus, type ItemStatus, type RecipientStatus } from './enums.ts';
import type { ItemDetails } from './kinds/config.ts';

export interface FileState {
  registryDocumentId: string;
  recipientId: string | null;
  submittedAt: string;
  /** The latest opinion on the file (automatic, or the operator's decision on the document). */
  opinion: FileOpinion | null;
}

export interface ItemState extends ItemDefinition {
  status: ItemStatus;
  files: FileState[];
  /** Why the last file was refused and a new one asked for; null otherwise. */
  resendReason: string | null;
  resolvedAt: string | null;
  /** What a FORM, CONSENT, IDENTITY or SIGNATURE item has received (domain/collection/kinds). */
  details: ItemDetails;
}

/** What a recipient did or what became of their messages; the status also depends on their items. */
export type RecipientActivity = 'PENDING' | 'DELIVERED' | 'FAILED' | 'OPENED' | 'IN_PROGRESS';

export interface RecipientState extends Omit<RecipientDefinition, 'linkHash'> {
  linkVersion: number;
  linkHash: string;
  activity: RecipientActivity;
  status: RecipientStatus;
  /** Messages already recorded (notified or failed): a repeated outcome is not recorded twice. */
  messageIds: string[];
  /**
   * What the trail holds per channel of those messages (messageOutcome keys): sent on a channel,
   * that channel lost, the message failed. A fallback channel's send is recorded after a loss.
   */
  messageOutcomes: string[];
  openedAt: string | null;
  lastNotifiedAt: string | null;
  reminders: number;
}

/** A public form's intake: whether it reaches the registry yet, and who linked it when an operator did. */
export interface IntakeState {
  status: IntakeStatus;
  linkedAt: string | null;
  linkedBy: Actor | null;
}

export interface CollectionState extends Omit<CollectionDefinition, 'items' | 'recipients'> {
  collectionId: string | null;
  organizationId: string | null;
  /** Who created it (the operator or credential a completion acts for). */
  createdBy: Actor | null;
  /** PUBLIC_FORM when an anonymous visitor opened it; null for operators, integrators and pipelines. */
  origin: CollectionOrigin | null;
  intake: IntakeState | null;
  status: CollectionStatus;
  items: ItemState[];
  recipients: RecipientState[];
  createdAt: string | null;
  sentAt: string | null;
  expiresAt: string | null;
  canceledAt: string | null;
  cancelReason: string | null;
  completedAt: string | null;
  expiredAt: string | null;
}

/**
 * Whether what the collection received belongs to its registry: always, except for a public
 * form's intake that no operator linked yet (an anonymous visitor may have typed anyone's CPF).
 */
export const feedsRegistry = (state: Pick<CollectionState, 'intake'>) => state.intake?.status !== 'UNLINKED';

export const isClosed = (state: CollectionState) => CLOSED_COLLECTION_STATUSES.includes(state.status);
export const isResolved = (item: Pick<ItemState, 'status'>) => RESOLVED_ITEM_STATUSES.includes(item.status);
/** Items waiting on the recipient: nothing received yet, or a new file asked for. */
export const isAwaitingRecipient = (item: Pick<ItemState, 'status'>) => item.status === 'PENDING' || item.status === 'REJECTED';

export function initialCollectionState(): CollectionState {
  return {
    collectionId: null,
    organizationId: null,
    createdBy: null,
    origin: null,
    intake: null,
    status: 'DRAFT',
    registryId: '',
    subject: { name: '', document: '', entityType: 'COMPANY' },
    template: null,
    mode: 'AUTOMATIC',
    channel: 'NONE',
    expiryDays: 0,
    reminderDays: [],
    onCompleted: { kind: 'NONE', id: null },
    message: null,
    items: [],
    recipients: [],
    createdAt: null,
    sentAt: null,
    expiresAt: null,
    canceledAt: null,
    cancelReason: null,
    completedAt: null,
    expiredAt: null,
  };
}

/**
 * A recipient's status: NO_ITEMS when nothing is left that needs them (no item, or every item
 * resolved without a file of theirs: on file or waived), COMPLETED when their items are resolved
 * and one of them by a file, otherwise what they did last (delivered, opened, sending files).
 */
export function recipientStatus(recipient: Omit<RecipientState, 'status'>, items: readonly ItemState[]): RecipientStatus {
  const mine = items.filter((item) => recipient.itemIds.includes(item.itemId));
  if (mine.length === 0) return 'NO_ITEMS';
  if (mine.every(isResolved)) return mine.some((item) => item.status === 'VALIDATED') ? 'COMPLETED' : 'NO_ITEMS';
  return recipient.activity;
}

export function newRecipient(definition: RecipientDefinition, items: readonly ItemState[]): RecipientState {
  const recipient = { ...definition, linkVersion: 1, activity: 'PENDING' as const, messageIds: [], messageOutcomes: [], openedAt: null, lastNotifiedAt: null, reminders: 0 };
  return { ...recipient, status: recipientStatus(recipient, items) };
}

export function withItem(state: CollectionState, itemId: string | null, change: (item: ItemState) => ItemState): CollectionState {
  const items = state.items.map((item) => (item.itemId === itemId ? change(item) : item));
  return { ...state, items, recipients: state.recipients.map((r) => ({ ...r, status: recipientStatus(r, items) })) };
}

export function withRecipient(state: CollectionState, recipientId: string | null, change: (recipient: RecipientState) => Omit<RecipientState, 'status'>): CollectionState {
  const recipients = state.recipients.map((r) => {
    if (r.recipientId !== recipientId) return r;
    const changed = change(r);
    return { ...changed, status: recipientStatus(changed, state.items) };
  });
  return { ...state, recipients };
}

/** A key of RecipientState.messageOutcomes. */
export const messageOutcome = (outcome: 'sent' | 'lost' | 'failed', messageId: string, channel?: MessageChannel) => [outcome, messageId, channel].filter(Boolean).join(':');

/**
 * Whether a send on `channel` is new to the trail: a message is recorded as sent once, whatever
 * its channels, unless every channel it was recorded on has since been reported lost (the next
 * channel of its order then took it over), and never after it failed.
 */
export function isNewSend(recipient: RecipientState, messageId: string, channel: MessageChannel): boolean {
  const has = (key: string) => recipient.messageOutcomes.includes(key);
  if (has(messageOutcome('sent', messageId, channel)) || has(messageOutcome('failed', messageId))) return false;
  const prefix = messageOutcome('sent', messageId) + ':';
  const sentOn = recipient.messageOutcomes.filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length));
  if (sentOn.length === 0) return !recipient.messageIds.includes(messageId);
  return sentOn.every((sent) => has(messageOutcome('lost', messageId, sent as MessageChannel)));
}

/** Activity only moves forward: a late "delivered" does not undo an opening. */
const ACTIVITY_ORDER: RecipientActivity[] = ['PENDING', 'FAILED', 'DELIVERED', 'OPENED', 'IN_PROGRESS'];
export const advance = (from: RecipientActivity, to: RecipientActivity) => (ACTIVITY_ORDER.indexOf(to) > ACTIVITY_ORDER.indexOf(from) ? to : from);

export function addFile(item: ItemState, file: FileState): ItemState {
  return item.files.some((f) => f.registryDocumentId === file.registryDocumentId) ? item : { ...item, files: [...item.files, file] };
}
