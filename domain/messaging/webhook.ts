import type { MessageEvent } from './events.ts';

type FailedData = Extract<MessageEvent, { type: 'MessageFailed' }>['data'];

/** collection.message.failed: exactly the spec's fields (it does not come from the trail). */
export function messageFailedWebhookData(data: Record<string, unknown>): Record<string, unknown> {
  const { correlation, to, template, channels, error } = data as unknown as FailedData;
  return {
    collectionId: correlation.collectionId,
    recipientId: correlation.recipientId,
    name: to.name ?? null,
    email: to.email ?? null,
    phone: to.phone ?? null,
    template,
    channels,
    error,
  };
}
