import { collectionCorrelationOf, notSentMessageProvenance, type MessageEvent } from './events.ts';

type FailedData = Extract<MessageEvent, { type: 'MessageFailed' }>['data'];
type NotSentData = Extract<MessageEvent, { type: 'MessageNotSent' }>['data'];

/** collection.message.failed is about collections: a platform user's notice that failed sends nothing. */
export function messageFailedWebhookName(data: Record<string, unknown>): string | null {
  return collectionCorrelationOf((data as unknown as FailedData).correlation) ? 'collection.message.failed' : null;
}

/**
 * collection.message.failed: the spec's fields (it does not come from the trail), plus ours:
 * `status`, FAILED when a channel gave up or NOT_SENT when no channel could send it at all (the
 * spec's "the message did not arrive" covers both; `error` then carries the reason), and
 * `sandbox` for a NOT_SENT whose text the local sandbox outbox kept, with its `provenance`
 * ({provider: sandbox-outbox, sandbox: true}, or none).
 */
export function messageFailedWebhookData(data: Record<string, unknown>): Record<string, unknown> {
  const { correlation, to, template, channels } = data as unknown as FailedData;
  const notSent = typeof data.reason === 'string' ? (data as unknown as NotSentData) : null;
  const { collectionId, recipientId } = collectionCorrelationOf(correlation)!;
  return {
    collectionId,
    recipientId,
    name: to.name ?? null,
    email: to.email ?? null,
    phone: to.phone ?? null,
    template,
    channels,
    error: notSent ? notSent.reason : (data as unknown as FailedData).error,
    status: notSent ? 'NOT_SENT' : 'FAILED',
    ...(notSent ? { sandbox: notSent.sandbox, provenance: notSentMessageProvenance(notSent) } : {}),
  };
}
