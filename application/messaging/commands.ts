import { createHash } from 'node:crypto';
import type { MessageContent } from '../../domain/messaging/content.ts';
import { messagingDecider } from '../../domain/messaging/decider.ts';
import { messageStream, type ChannelFallback, type MessageAddressee, type MessageChannel, type MessageCorrelation, type MessageTemplate } from '../../domain/messaging/events.ts';
import type { Position } from '../../platform/eventstore/port.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';

export interface QueueMessageInput {
  organizationId: string;
  /** Same key, same message: a second request (a replayed event, a job run twice) queues nothing. */
  dedupeKey: string;
  template: MessageTemplate;
  channels: MessageChannel[];
  /** Which channel takes over when one gives up (planChannels); absent: all at once. */
  fallback?: ChannelFallback;
  to: MessageAddressee;
  correlation: MessageCorrelation;
  content: MessageContent;
}

/** The message id a dedupe key names, in one organization: 24 hex like every stream id. */
export function messageIdFor(organizationId: string, dedupeKey: string): string {
  return createHash('sha256').update(`${organizationId}:${dedupeKey}`).digest('hex').slice(0, 24);
}

/**
 * Queue a message for the dispatcher. The id is derived from the key, and the stream refuses a
 * second MessageQueued (the decider decides nothing, and two racing callers conflict on the
 * stream's revision, so the loser reloads and decides nothing either).
 */
export async function queueMessage(app: Pick<AppContext, 'store' | 'clock'>, input: QueueMessageInput): Promise<{ messageId: string; position: Position | null }> {
  const messageId = messageIdFor(input.organizationId, input.dedupeKey);
  const { position } = await handleCommand(app.store, messageStream(messageId), messagingDecider, {
    type: 'QueueMessage',
    messageId,
    ...input,
    at: app.clock.now().toISOString(),
  });
  return { messageId, position };
}

/**
 * Withdraw a collection's messages of these templates that have not left yet (waiting for their
 * first attempt or a retry): a closed collection's invitation or reminder must not arrive after it
 * closed. Reads the messaging read model: the caller makes sure it is current. A message already
 * on its way when this runs may still arrive; one that left stays SENT.
 */
export async function withdrawPendingMessages(
  app: Pick<AppContext, 'store' | 'clock' | 'db'>,
  ref: { organizationId: string; collectionId: string; templates: readonly MessageTemplate[] },
  reason: string,
): Promise<number> {
  const pending: Array<{ id: string }> = await app
    .db('messaging_messages')
    .where({ organization_id: ref.organizationId, collection_id: ref.collectionId, status: 'PENDING' })
    .whereIn('template', ref.templates)
    .select('id');
  let withdrawn = 0;
  for (const { id } of pending) {
    const { position } = await handleCommand(app.store, messageStream(id), messagingDecider, { type: 'Withdraw', reason, at: app.clock.now().toISOString() });
    if (position) withdrawn++;
  }
  return withdrawn;
}
