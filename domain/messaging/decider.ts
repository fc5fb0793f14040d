import type { Decider, DomainEvent } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import type { MessageContent, MessageStatus } from './content.ts';
import { NO_PROVIDER, SANDBOX_OUTBOX_PROVIDER, type ChannelFallback, type MessageAddressee, type MessageChannel, type MessageCorrelation, type MessageEvent, type MessageTemplate } from './events.ts';
import { MessagingMessages } from './messages.ts';

type Data<T extends MessageEvent['type']> = Extract<MessageEvent, { type: T }>['data'];

/**
 * MessageQueued carries, beyond the shared shape, what the texts are built from and the key that
 * made its id (so a reader can tell why two requests became one message).
 */
export type MessageQueuedData = Data<'MessageQueued'> & { dedupeKey: string; content: MessageContent; fallback?: ChannelFallback };

export type MessagingEvent =
  | DomainEvent<'MessageQueued', MessageQueuedData>
  | DomainEvent<'MessageSent', Data<'MessageSent'>>
  | DomainEvent<'MessageDelivered', Data<'MessageDelivered'>>
  | DomainEvent<'MessageRead', Data<'MessageRead'>>
  | DomainEvent<'MessageChannelFailed', Data<'MessageChannelFailed'>>
  | DomainEvent<'MessageFailed', Data<'MessageFailed'>>
  | DomainEvent<'MessageNotSent', Data<'MessageNotSent'>>
  /**
   * Ours, beside the shared outcomes: the asker no longer wants a message that has not left (its
   * collection closed while it waited for a retry). It ends FAILED with the reason, but it is not
   * a channel's failure, so it fires no collection.message.failed.
   */
  | DomainEvent<'MessageWithdrawn', Data<'MessageQueued'> & { reason: string }>;

export type MessagingCommand =
  | {
      type: 'QueueMessage';
      organizationId: string;
      messageId: string;
      dedupeKey: string;
      template: MessageTemplate;
      channels: MessageChannel[];
      to: MessageAddressee;
      correlation: MessageCorrelation;
      content: MessageContent;
      /** Absent: every channel at once. */
      fallback?: ChannelFallback;
      at: string;
    }
  | { type: 'RecordSent'; channel: MessageChannel; providerMessageId: string | null; provider: string; at: string }
  | { type: 'RecordDelivered'; channel: MessageChannel; at: string }
  | { type: 'RecordRead'; channel: MessageChannel; at: string }
  /** The channel gave up, before leaving or after (its provider reported the copy lost): the next channel of the order takes over. */
  | { type: 'RecordChannelFailed'; channel: MessageChannel; error: string; at: string }
  | { type: 'RecordFailed'; error: string; at: string }
  | { type: 'RecordNotSent'; reason: string; sandbox: boolean; at: string }
  | { type: 'Withdraw'; reason: string; at: string };

export interface MessagingState {
  queued: MessageQueuedData | null;
  status: MessageStatus | null;
  sent: MessageChannel[];
  delivered: MessageChannel[];
  read: MessageChannel[];
  /** Channels that gave up (MessageChannelFailed), before leaving or after: they no longer count as carrying it. */
  failed: MessageChannel[];
}

const initialState = (): MessagingState => ({ queued: null, status: null, sent: [], delivered: [], read: [], failed: [] });

/** Channels that took the message and were not reported failed since: while one remains, the message is not FAILED. */
export const standingChannels = (state: MessagingState) => state.sent.filter((channel) => !state.failed.includes(channel));

/** The channels tried first: those no other channel falls back to. */
export function firstChannels(queued: Pick<MessageQueuedData, 'channels' | 'fallback'>): MessageChannel[] {
  const later = new Set(Object.values(queued.fallback ?? {}));
  return queued.channels.filter((channel) => !later.has(channel));
}

/** Each fallback names two channels of the message, no channel is the fallback of two, and no chain loops back. */
function validFallback(channels: readonly MessageChannel[], fallback: ChannelFallback): boolean {
  const pairs = Object.entries(fallback) as Array<[MessageChannel, MessageChannel]>;
  if (pairs.some(([from, to]) => from === to || !channels.includes(from) || !channels.includes(to))) return false;
  if (new Set(pairs.map(([, to]) => to)).size !== pairs.length) return false;
  return (
    firstChannels({ channels: [...channels], fallback }).length > 0 &&
    pairs.every(([from]) => {
      const seen = new Set<MessageChannel>();
      for (let at: MessageChannel | undefined = from; at; at = fallback[at]) {
        if (seen.has(at)) return false;
        seen.add(at);
      }
      return true;
    })
  );
}

function evolve(state: MessagingState, event: MessagingEvent): MessagingState {
  switch (event.type) {
    case 'MessageQueued':
      return { ...state, queued: event.data, status: 'PENDING' };
    case 'MessageSent':
      return { ...state, sent: [...state.sent, event.data.channel], status: state.status === 'DELIVERED' ? 'DELIVERED' : 'SENT' };
    case 'MessageDelivered':
      return { ...state, delivered: [...state.delivered, event.data.channel], status: 'DELIVERED' };
    case 'MessageRead':
      return { ...state, read: [...state.read, event.data.channel], status: 'DELIVERED' };
    case 'MessageChannelFailed':
      return { ...state, failed: [...state.failed, event.data.channel] };
    case 'MessageFailed':
    case 'MessageWithdrawn':
      return { ...state, status: 'FAILED' };
    case 'MessageNotSent':
      return { ...state, status: 'NOT_SENT' };
  }
}

/** The fields every event of the stream repeats, so each one alone tells whom it was for. */
function base(queued: MessageQueuedData, at: string): Data<'MessageQueued'> {
  const { organizationId, messageId, template, channels, to, correlation } = queued;
  return { organizationId, messageId, template, channels, to, correlation, at };
}

function queuedOrRefuse(state: MessagingState): MessageQueuedData {
  if (!state.queued) throw new DomainError('not_found', MessagingMessages.notQueued);
  return state.queued;
}

function ownChannel(queued: MessageQueuedData, channel: MessageChannel): void {
  if (!queued.channels.includes(channel)) throw new DomainError('invalid', MessagingMessages.channelNotInMessage);
}

/**
 * A message and its outcome. Every outcome is idempotent (a dispatcher that sent twice after a
 * crash records once), and a message that left on any channel never becomes FAILED while that
 * channel stands by it: the other channel giving up does not take back what was sent. Only the
 * provider's own report that its copy was lost (RecordChannelFailed after MessageSent) does.
 */
function decide(command: MessagingCommand, state: MessagingState): MessagingEvent[] {
  if (command.type === 'QueueMessage') {
    if (state.queued) return [];
    if (command.channels.length === 0) throw new DomainError('invalid', MessagingMessages.noChannel);
    if (new Set(command.channels).size !== command.channels.length) throw new DomainError('invalid', MessagingMessages.duplicateChannel);
    if (command.fallback && !validFallback(command.channels, command.fallback)) throw new DomainError('invalid', MessagingMessages.invalidFallback);
    const { type: _, ...data } = command;
    return [{ type: 'MessageQueued', data }];
  }
  const queued = queuedOrRefuse(state);
  switch (command.type) {
    case 'RecordSent':
      ownChannel(queued, command.channel);
      // A channel that already gave up (its provider's report of the copy lost outran the dispatcher) is not SENT again.
      if (state.sent.includes(command.channel) || state.failed.includes(command.channel)) return [];
      return [
        {
          type: 'MessageSent',
          data: { ...base(queued, command.at), channel: command.channel, providerMessageId: command.providerMessageId, provenance: { provider: command.provider, sandbox: false } },
        },
      ];
    case 'RecordDelivered':
      ownChannel(queued, command.channel);
      if (state.delivered.includes(command.channel)) return [];
      return [{ type: 'MessageDelivered', data: { ...base(queued, command.at), channel: command.channel } }];
    case 'RecordRead': {
      ownChannel(queued, command.channel);
      if (state.read.includes(command.channel)) return [];
      // A read receipt proves delivery even when the "delivered" one was lost or comes later.
      const delivered: MessagingEvent[] = state.delivered.includes(command.channel) ? [] : [{ type: 'MessageDelivered', data: { ...base(queued, command.at), channel: command.channel } }];
      return [...delivered, { type: 'MessageRead', data: { ...base(queued, command.at), channel: command.channel } }];
    }
    case 'RecordChannelFailed': {
      ownChannel(queued, command.channel);
      // A channel that reached the person is not taken back by a later report of it lost.
      if (state.failed.includes(command.channel) || state.delivered.includes(command.channel) || state.status === 'FAILED' || state.status === 'NOT_SENT') return [];
      const next = queued.fallback?.[command.channel] ?? null;
      return [{ type: 'MessageChannelFailed', data: { ...base(queued, command.at), channel: command.channel, error: command.error, next } }];
    }
    case 'RecordFailed':
      if (state.status === 'FAILED' || state.status === 'NOT_SENT' || standingChannels(state).length > 0) return [];
      return [{ type: 'MessageFailed', data: { ...base(queued, command.at), error: command.error } }];
    case 'RecordNotSent':
      if (state.status !== 'PENDING' || standingChannels(state).length > 0) return [];
      return [
        {
          type: 'MessageNotSent',
          data: {
            ...base(queued, command.at),
            reason: command.reason,
            sandbox: command.sandbox,
            provenance: { provider: command.sandbox ? SANDBOX_OUTBOX_PROVIDER : NO_PROVIDER, sandbox: command.sandbox },
          },
        },
      ];
    case 'Withdraw':
      if (state.status !== 'PENDING' || state.sent.length > 0) return [];
      return [{ type: 'MessageWithdrawn', data: { ...base(queued, command.at), reason: command.reason } }];
  }
}

export const messagingDecider: Decider<MessagingCommand, MessagingEvent, MessagingState> = { initialState, evolve, decide };
