import type { MessageContent } from '../../../domain/messaging/content.ts';
import type { MessageAddressee, MessageChannel, MessageTemplate } from '../../../domain/messaging/events.ts';
import type { RenderedMessage } from '../../../domain/messaging/templates.ts';
import type { ERASED_SUBJECT } from '../../../platform/personal-data/index.ts';

export interface OutgoingMessage {
  messageId: string;
  to: MessageAddressee;
  /** The message's kind and what its texts are built from: a chat template fills its parameters from them. */
  template: MessageTemplate;
  content: MessageContent;
  rendered: RenderedMessage;
  /** The SMS text: the code or link and who sends it (domain/messaging/sms-text.ts). */
  short: string;
  /** The addressee as a personal-data subject (messagingPersonalData): whose key seals what a channel keeps of the message. */
  addressee: string | typeof ERASED_SUBJECT | null;
}

/**
 * What a channel answered when it did not take a message. `text` is the channel's own words (kept
 * for the operator and sent in collection.message.failed); `permanent` says trying again cannot
 * help (a refused address), so the channel gives up at once instead of waiting out its retries.
 */
export class ChannelError extends Error {
  override name = 'ChannelError';
  constructor(
    readonly text: string,
    readonly permanent: boolean,
  ) {
    super(text);
  }
}

/**
 * What a channel did with a message: took it (with the provider's id when it gives one), or could
 * not send it at all because nothing real is configured behind it (`notSent`, the reason; `sandbox`
 * when the local sandbox outbox kept the text). Not sending is final and honest: the message reads
 * NOT_SENT, never SENT.
 */
export type ChannelOutcome = { providerMessageId: string | null } | { notSent: string; sandbox: boolean };

/** One way of reaching a person. Adapters throw ChannelError; anything else counts as passing. */
export interface MessageChannelPort {
  readonly channel: MessageChannel;
  /** Who carries it (smtp, whatsapp-cloud-api, sandbox-outbox): the provenance a sent message records. */
  readonly provider: string;
  send(message: OutgoingMessage): Promise<ChannelOutcome>;
  close(): Promise<void>;
}
