import type { DomainEvent } from '../shared/decider.ts';
import type { ReadProvenance } from '../shared/provenance.ts';
import type { MessageChannel } from '../messaging/events.ts';
import type { FileOpinion } from './commands.ts';
import type { CollectionDefinition, RecipientDefinition } from './definition.ts';
import type { CollectionOrigin, IntakeStatus, ItemStatus, NotificationChannel, ResolutionMode } from './enums.ts';
import type { CollectionEventData } from './events.ts';
import type { ConsentExtras, ConsentPayloads } from './kinds/consent.ts';
import type { FormExtras, FormPayloads } from './kinds/form.ts';
import type { IdentityExtras, IdentityPayloads } from './kinds/identity.ts';
import type { SignatureExtras, SignaturePayloads } from './kinds/signature.ts';
import type { SignedDocumentPayloads } from './kinds/signed-document.ts';

/**
 * The trail payload of each action this module writes. Payloads hold ids, statuses and reasons,
 * never names, documents, e-mails or phones: the trail goes to auditors and webhooks as it is.
 */
export interface CollectionPayloads extends FormPayloads, ConsentPayloads, IdentityPayloads, SignaturePayloads, SignedDocumentPayloads {
  CollectionCreated: {
    registryId: string;
    template: string | null;
    templateVersion: number | null;
    items: number;
    recipients: number;
    mode: ResolutionMode;
    channel: NotificationChannel;
    /** Set when a pipeline opened the collection to sign the contract it generated. */
    contractDocumentId?: string;
    /** Set when a public form opened it; `intake` says whether its answers wait for an operator's link. */
    origin?: CollectionOrigin;
    intake?: Exclude<IntakeStatus, 'LINKED'>;
  };
  /** The registry the intake's answers, consents, identity checks and files now belong to; the envelope's actor linked it. */
  IntakeLinked: { registryId: string };
  CollectionSent: { expiresAt: string };
  /** `provider`: set when an external signature provider canceled its envelope (itemId names the item). */
  CollectionCanceled: { reason: string | null; provider?: string };
  CollectionCompleted: { itemsTotal: number; itemsResolved: number };
  CollectionExpired: { expiredItemIds: string[]; reason?: string; provider?: string };
  ItemSubmitted: { registryDocumentId: string };
  ItemProcessingStarted: { registryDocumentId: string };
  /** `itemStatus`: where the opinion leaves the item (unchanged when it only informs). */
  ItemAssessed: FileOpinion & { itemStatus: ItemStatus; decidedByOperator: boolean; heldForOperator?: string };
  ItemAwaitingOperator: { registryDocumentId: string; reason: string | null };
  ItemRejected: { registryDocumentId: string | null; reason: string | null; resendRequested: true };
  ItemReviewed: { decision: 'APPROVED' | 'REJECTED'; reason: string | null };
  ItemWaived: { reason: string | null };
  RecipientAdded: { itemIds: string[] };
  RecipientLinkReissued: { linkVersion: number };
  RecipientOpened: { linkVersion: number };
  /** `provenance`: the provider that carried the message (MessageSent's); absent: recorded before provenance was. */
  RecipientNotified: { messageId: string; channel: MessageChannel; provenance?: ReadProvenance };
  RecipientReminded: { messageId: string; channel: MessageChannel; provenance?: ReadProvenance };
  /**
   * The message did not arrive: every channel gave up, or (`notSent`) no channel could send it at
   * all (the message is NOT_SENT; `error` is the reason; `provenance` what kept its text, the
   * sandbox outbox or none). With `channel`, one channel of the message failed, possibly after
   * taking it (the provider's status callback said the copy was lost), and `next` is the channel
   * that takes over (null: none); the message's own outcome comes after.
   */
  RecipientMessageFailed: { messageId: string; error: string; notSent?: true; provenance?: ReadProvenance; channel?: MessageChannel; next?: MessageChannel | null };
}

/** Fields stored beside the envelope for evolve (personal data and link hashes), never in the trail. */
interface Extras extends FormExtras, ConsentExtras, IdentityExtras, SignatureExtras {
  CollectionCreated: { definition: CollectionDefinition };
  RecipientAdded: { recipient: RecipientDefinition };
  RecipientLinkReissued: { linkHash: string };
}

type ExtraOf<T extends keyof CollectionPayloads> = T extends keyof Extras ? Extras[T] : unknown;

export type CollectionModuleEvent = {
  [T in keyof CollectionPayloads]: DomainEvent<T, CollectionEventData<CollectionPayloads[T]> & ExtraOf<T>>;
}[keyof CollectionPayloads];
