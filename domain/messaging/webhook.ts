import { collectionCorrelationOf, type MessageEvent } from './events.ts';

type FailedData = Extract<MessageEvent, { type: 'MessageFailed' }>['data'];

/** collection.message.failed is about collections: a platform user's notice that failed sends nothing. */
export function messageFailedWebhookName(data: Record<string, unknown>): string | null {
  return collectionCorrelationOf((data as unknown as FailedData).correlation) ? 'collection.message.failed' : null;
}

/** collection.message.failed: exactly the spec's fields (it does not come from the trail). */
export function messageFailedWebhookData(data: Record<string, unknown>): Record<string, unknown> {
  const { correlation, to, template, channels, error } = data as unknown as FailedData;
  const { collectionId, recipientId } = collectionCorrelationOf(correlation)!;
  return {
    collectionId,
    recipientId,
    name: to.name ?? null,
    email: to.email ?? null,
    phone: to.phone ?? null,
    template,
    channels,
    error,
  };
}
