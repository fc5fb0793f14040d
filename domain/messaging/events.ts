import type { DomainEvent } from '../shared/decider.ts';
import type { Provenance, ReadProvenance } from '../shared/provenance.ts';

/** `message-<id>`: one message to one person over one or more channels, and what became of it. */
export const MESSAGE_CATEGORY = 'message';
export const messageStream = (messageId: string) => `${MESSAGE_CATEGORY}-${messageId}`;

export type MessageChannel = 'EMAIL' | 'WHATSAPP' | 'SMS';
/**
 * Which channel takes over when one gives up (`{WHATSAPP: 'SMS', SMS: 'EMAIL'}`: WhatsApp, then
 * SMS, then e-mail). Channels nobody falls back to are tried at once, side by side.
 */
export type ChannelFallback = Partial<Record<MessageChannel, MessageChannel>>;
/** Which text a message carries; the names are the contract's (COLLECTION_INVITE seen). */
export type CollectionTemplate = 'COLLECTION_INVITE' | 'COLLECTION_REMINDER' | 'COLLECTION_COMPLETED' | 'SIGNATURE_CODE';
export type MessageTemplate = CollectionTemplate | 'FINANCIAL_STATEMENTS_EXTRACTED' | 'FINANCIAL_STATEMENTS_FAILED' | 'OFFER_LINK';

export interface MessageAddressee {
  name: string;
  email: string | null;
  /** E.164. */
  phone: string | null;
}

/** A collection's message to one of its recipients (people outside the platform). */
export interface CollectionCorrelation {
  collectionId: string;
  recipientId: string;
}

/** A notice to a platform user about a report they acted on (a batch of financial statements they sent). */
export interface UserCorrelation {
  userId: string;
  reportId: string;
  batchId: string;
}

/** A proposal's indicative offer sent to the proposal's contact (its link opens the offer page). */
export interface OfferCorrelation {
  proposalId: string;
  offerId: string;
}

/** What the message is about, so the module that asked for it can react to its outcome. */
export type MessageCorrelation = CollectionCorrelation | UserCorrelation | OfferCorrelation;

/** The collection and recipient a message belongs to; null for a platform user's notice. */
export function collectionCorrelationOf(correlation: MessageCorrelation): CollectionCorrelation | null {
  return 'collectionId' in correlation ? correlation : null;
}

interface Base {
  organizationId: string;
  messageId: string;
  template: MessageTemplate;
  channels: MessageChannel[];
  to: MessageAddressee;
  correlation: MessageCorrelation;
  at: string;
}

export type MessageEvent =
  | DomainEvent<'MessageQueued', Base>
  /** Left with a channel (the SMTP server accepted it, the chat provider took it). */
  /** `provenance`: the channel's provider, never a sandbox (a sandbox channel sends nothing); absent: recorded before provenance was. */
  | DomainEvent<'MessageSent', Base & { channel: MessageChannel; providerMessageId: string | null; provenance?: Provenance }>
  /** The channel confirmed delivery to the person (a provider's status callback). */
  | DomainEvent<'MessageDelivered', Base & { channel: MessageChannel }>
  /** The person opened it on the channel (WhatsApp's "read" receipt); the status stays DELIVERED, the contract's last. */
  | DomainEvent<'MessageRead', Base & { channel: MessageChannel }>
  /**
   * One channel of the message gave up, before leaving (the provider refused it, or it ran out of
   * tries) or after (the provider took it, then reported it lost: WhatsApp's "failed" status,
   * Twilio's "undelivered" or "failed"), and `next` is the channel tried in its place, or null
   * when none is left for it. The message's own outcome follows from the other channels
   * (MessageSent, MessageFailed once none is left standing).
   */
  | DomainEvent<'MessageChannelFailed', Base & { channel: MessageChannel; error: string; next: MessageChannel | null }>
  /** Every channel gave up: the text the channel answered is kept for the operator. */
  | DomainEvent<'MessageFailed', Base & { error: string }>
  /**
   * No channel could carry it: none is configured for it (no SMS provider, no SMTP server), or only
   * the local sandbox outbox kept its text (`sandbox`: a developer can read it there). Nothing left
   * the machine, so it is never SENT or DELIVERED; `reason` says why, for the operator.
   */
  | DomainEvent<'MessageNotSent', Base & { reason: string; sandbox: boolean; provenance?: Provenance }>;

/** What kept a NOT_SENT message's text: the local sandbox outbox, or nothing at all. */
export const SANDBOX_OUTBOX_PROVIDER = 'sandbox-outbox';
export const NO_PROVIDER = 'none';

type SentData = Extract<MessageEvent, { type: 'MessageSent' }>['data'];
type NotSentData = Extract<MessageEvent, { type: 'MessageNotSent' }>['data'];

/** A sent message's provider; one recorded before provenance was is unknown (the sandbox outbox then reported SENT too). */
export const sentMessageProvenance = (data: SentData): ReadProvenance => data.provenance ?? { provider: null, sandbox: null };

/** What kept a NOT_SENT message's text; one recorded before provenance was says it by its `sandbox` flag. */
export const notSentMessageProvenance = (data: NotSentData): ReadProvenance => data.provenance ?? { provider: data.sandbox ? SANDBOX_OUTBOX_PROVIDER : NO_PROVIDER, sandbox: data.sandbox };
