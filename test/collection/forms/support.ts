import * as assert from 'uvu/assert';
import type { TestApp } from '../../support/app.ts';
import { eventually } from '../../support/wait.ts';
import type { Receiver } from '../../support/webhook-receiver.ts';

/** What a browser sends and gets on the recipient page (raw HTTP: HTML pages, urlencoded forms, no redirects followed). */
export const BROWSER = 'Mozilla/5.0 (NavegadorDeTeste/1.0)';

export async function openPage(app: TestApp, token: string): Promise<string> {
  const response = await fetch(`${app.url}/c/${token}`, { headers: { accept: 'text/html', 'user-agent': BROWSER } });
  assert.is(response.status, 200);
  return response.text();
}

export async function postForm(app: TestApp, path: string, fields: Record<string, string>) {
  const response = await fetch(app.url + path, {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', 'user-agent': BROWSER },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

/** The spec's data shape of every collection event, exactly these fields. */
export const ENVELOPE_FIELDS = ['action', 'actorType', 'collectionId', 'itemId', 'occurredAt', 'payload', 'recipientId'];

/** The delivery of `event` about `collectionId` at a real receiver, parsed. */
export async function deliveryOf(receiver: Receiver, event: string, collectionId: string) {
  const delivery = await eventually(async () => receiver.received.find((r) => r.body.includes(collectionId) && JSON.parse(r.body).event === event), { timeoutMs: 20_000, what: event });
  return { raw: delivery.body, headers: delivery.headers, data: JSON.parse(delivery.body).data };
}
