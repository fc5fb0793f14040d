import type { DomainEvent } from '../shared/decider.ts';
import type { ActorType } from './enums.ts';

/**
 * `collection-<id>`: a collection with its items and recipients. Every event of the stream is one
 * entry of the collection's trail: the audit trail is the stream itself, read through the trail
 * projection, so nothing can happen to a collection without leaving its entry.
 */
export const COLLECTION_CATEGORY = 'collection';
export const collectionStream = (collectionId: string) => `${COLLECTION_CATEGORY}-${collectionId}`;

/**
 * One row per trail action: the stored event type, the action as the contract spells it, and the
 * named webhook it becomes (null: recorded in the trail, never sent, as the contract's "noise").
 * collection.message.failed is absent on purpose: it does not come from the trail.
 */
export const COLLECTION_ACTIONS = [
  { type: 'CollectionCreated', action: 'COLLECTION_CREATED', publicName: 'collection.created' },
  { type: 'CollectionSent', action: 'COLLECTION_SENT', publicName: 'collection.sent' },
  { type: 'CollectionCanceled', action: 'COLLECTION_CANCELED', publicName: 'collection.canceled' },
  { type: 'CollectionCompleted', action: 'COLLECTION_COMPLETED', publicName: 'collection.completed' },
  { type: 'CollectionExpired', action: 'COLLECTION_EXPIRED', publicName: 'collection.expired' },
  { type: 'ItemSubmitted', action: 'ITEM_SUBMITTED', publicName: 'collection.item.submitted' },
  { type: 'ItemAssessed', action: 'ITEM_ASSESSED', publicName: 'collection.item.assessed' },
  { type: 'ItemRejected', action: 'ITEM_REJECTED', publicName: 'collection.item.rejected' },
  { type: 'ItemReviewed', action: 'ITEM_REVIEWED', publicName: 'collection.item.reviewed' },
  { type: 'ItemWaived', action: 'ITEM_WAIVED', publicName: 'collection.item.waived' },
  { type: 'FormSubmitted', action: 'FORM_SUBMITTED', publicName: 'collection.form.submitted' },
  { type: 'ConsentAccepted', action: 'CONSENT_ACCEPTED', publicName: 'collection.consent.accepted' },
  // Not in the contract's catalogue, which names no revocation: LGPD makes consent revocable.
  { type: 'ConsentRevoked', action: 'CONSENT_REVOKED', publicName: 'collection.consent.revoked' },
  { type: 'IdentityCompleted', action: 'IDENTITY_COMPLETED', publicName: 'collection.identity.completed' },
  { type: 'SignatureCollected', action: 'SIGNATURE_COLLECTED', publicName: 'collection.signature.collected' },
  { type: 'SignatureCompleted', action: 'SIGNATURE_COMPLETED', publicName: 'collection.signature.completed' },
  { type: 'SignatureDocumentGenerated', action: 'SIGNATURE_DOCUMENT_GENERATED', publicName: 'collection.signature.document' },
  { type: 'RecipientNotified', action: 'RECIPIENT_NOTIFIED', publicName: 'collection.message.sent' },
  { type: 'RecipientReminded', action: 'RECIPIENT_REMINDED', publicName: 'collection.message.reminded' },
  { type: 'RecipientOpened', action: 'RECIPIENT_OPENED', publicName: 'collection.recipient.opened' },
  // Trail only: edits of a draft, state recomputations, operator bookkeeping, explicit views, signing steps.
  { type: 'CollectionDraftUpdated', action: 'COLLECTION_DRAFT_UPDATED', publicName: null },
  { type: 'ItemProcessingStarted', action: 'ITEM_PROCESSING', publicName: null },
  { type: 'ItemAwaitingOperator', action: 'ITEM_AWAITING_OPERATOR', publicName: null },
  { type: 'RecipientAdded', action: 'RECIPIENT_ADDED', publicName: null },
  { type: 'RecipientLinkReissued', action: 'RECIPIENT_LINK_REISSUED', publicName: null },
  { type: 'RecipientMessageFailed', action: 'RECIPIENT_MESSAGE_FAILED', publicName: null },
  { type: 'ItemFileDownloaded', action: 'ITEM_FILE_DOWNLOADED', publicName: null },
  { type: 'IdentityCheckStarted', action: 'IDENTITY_CHECK_STARTED', publicName: null },
  { type: 'IdentityImagesViewed', action: 'IDENTITY_IMAGES_VIEWED', publicName: null },
  { type: 'SignatureCodeSent', action: 'SIGNATURE_CODE_SENT', publicName: null },
  { type: 'SignatureContactVerified', action: 'SIGNATURE_CONTACT_VERIFIED', publicName: null },
  { type: 'SignatureDeclined', action: 'SIGNATURE_DECLINED', publicName: null },
  { type: 'IntakeLinked', action: 'INTAKE_LINKED', publicName: null },
] as const;

export type CollectionEventType = (typeof COLLECTION_ACTIONS)[number]['type'];
export type CollectionAction = (typeof COLLECTION_ACTIONS)[number]['action'];
export const COLLECTION_EVENT_TYPES: readonly CollectionEventType[] = COLLECTION_ACTIONS.map((a) => a.type);

/**
 * The data of every collection event: the trail entry. `payload` is specific to the action (its
 * types live with the decider); the envelope is what the trail, its hash chain and the webhooks
 * read, so they never need to know an action's payload. `actorId` names the user, credential or
 * recipient for auditors and is never sent in a webhook.
 */
export interface CollectionEventData<Payload extends object = Record<string, unknown>> {
  organizationId: string;
  collectionId: string;
  itemId: string | null;
  recipientId: string | null;
  action: CollectionAction;
  actorType: ActorType;
  actorId: string | null;
  occurredAt: string;
  payload: Payload;
}

export type CollectionEvent<Payload extends object = Record<string, unknown>> = DomainEvent<CollectionEventType, CollectionEventData<Payload>>;

/** The webhook data of a trail entry: the contract's shape, without the tenant and the actor's id. */
export function collectionWebhookData(data: CollectionEventData): Record<string, unknown> {
  return {
    collectionId: data.collectionId,
    itemId: data.itemId,
    recipientId: data.recipientId,
    action: data.action,
    actorType: data.actorType,
    occurredAt: data.occurredAt,
    payload: data.payload,
  };
}
