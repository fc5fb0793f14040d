import { createHmac } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SignatureMessages } from '../../../domain/collection/messages.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { provisionTenant, type TestTenant } from '../../support/identity.ts';
import { eventually } from '../../support/webhook.ts';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.ts';
import { detailWhen } from '../support.ts';
import { registryWithContract } from './http-support.ts';

const test = suite('signatures through HTTP: an external provider\'s signed callbacks cancel or expire the collection');
const SECRET = 'segredo-do-provedor-0123456789';
let app: TestApp;
let tenant: TestTenant;
let receiver: Receiver;

test.before(async () => {
  app = await startTestApp({ SIGNATURE_PROVIDERS: `externo:${SECRET}` });
  tenant = await provisionTenant(app);
  receiver = await startReceiver();
  const subscription = await app.call('POST', '/v1/webhook/subscriptions', { token: tenant.token, body: { url: `${receiver.url}/named`, events: ['collection.canceled', 'collection.expired'] } });
  assert.is(subscription.status, 201, JSON.stringify(subscription.body));
});
test.after(async () => {
  await receiver?.close();
  await app?.stop();
});
const call = (method: string, path: string, body?: unknown) => app.call(method, path, { token: tenant.token, body });

async function signing() {
  const { subject, registryDocumentId } = await registryWithContract(app, tenant);
  const reply = await call('POST', '/v1/collections', {
    subject,
    items: [{ key: 'contrato', kind: 'SIGNATURE', title: 'Contrato', config: { signature: { mode: 'JOINT', flow: 'SIGNATURE', registryDocumentId } } }],
    recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
    notificationChannel: 'NONE',
    send: true,
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return { collectionId: reply.body.id as string, itemId: reply.body.items[0].id as string };
}

/**
 * A callback as the provider sends it: the body spaced its own way, signed over its canonical
 * form (keys sorted, no spaces: for these flat string fields, JSON.stringify of the sorted object).
 */
function callback(provider: string, body: Record<string, string>, options: { secret?: string; timestamp?: number } = {}) {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const canonical = JSON.stringify(Object.fromEntries(Object.entries(body).sort(([a], [b]) => a.localeCompare(b))));
  const signature = createHmac('sha256', options.secret ?? SECRET).update(`${timestamp}.${canonical}`).digest('hex');
  return fetch(`${app.url}/v1/signature-providers/${provider}/callbacks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature-timestamp': timestamp, 'x-signature': `sha256=${signature}` },
    body: JSON.stringify(body, null, 2),
  });
}

test('envelope.canceled: collection.canceled with reason, provider and itemId; a repeated callback changes nothing', async () => {
  const { collectionId, itemId } = await signing();
  const body = { event: 'envelope.canceled', collectionId, itemId, reason: 'Envelope cancelado pelo remetente.' };
  const reply = await callback('externo', body);
  assert.equal([reply.status, await reply.json()], [200, { recorded: true, status: 'CANCELED' }]);
  const again = await callback('externo', body);
  assert.equal(await again.json(), { recorded: false, status: 'CANCELED' });
  const detail = await detailWhen(app, call, tenant.organizationId, collectionId, (d) => d.status === 'CANCELED', 'the cancel');
  assert.is(detail.cancelReason, 'Envelope cancelado pelo remetente.');
  const delivery = await eventually(async () => receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.data?.collectionId === collectionId), 20_000, 'collection.canceled');
  assert.equal([delivery.event, delivery.data.action, delivery.data.actorType, delivery.data.itemId, delivery.data.payload], [
    'collection.canceled', 'COLLECTION_CANCELED', 'SYSTEM', itemId, { reason: 'Envelope cancelado pelo remetente.', provider: 'externo' },
  ]);
});

test('envelope.expired: collection.expired with the pending items, reason, provider and itemId', async () => {
  const { collectionId, itemId } = await signing();
  const reply = await callback('externo', { event: 'envelope.expired', collectionId, itemId, reason: 'Prazo do envelope encerrado.' });
  assert.equal(await reply.json(), { recorded: true, status: 'EXPIRED' });
  const delivery = await eventually(async () => receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.data?.collectionId === collectionId), 20_000, 'collection.expired');
  assert.equal([delivery.event, delivery.data.itemId, delivery.data.payload], ['collection.expired', itemId, { expiredItemIds: [itemId], reason: 'Prazo do envelope encerrado.', provider: 'externo' }]);
});

test('refused: a wrong secret, a stale timestamp, an unknown provider, interno (no callbacks), an unknown collection; nothing recorded', async () => {
  const { collectionId, itemId } = await signing();
  const body = { event: 'envelope.canceled', collectionId, itemId, reason: 'Cancelado.' };
  for (const reply of [await callback('externo', body, { secret: 'outro-segredo-0123456789' }), await callback('externo', body, { timestamp: Math.floor(Date.now() / 1000) - 600 })]) {
    assert.equal([reply.status, (await reply.json()).message], [401, SignatureMessages.providerSignatureInvalid]);
  }
  for (const provider of ['desconhecido', 'interno']) {
    const reply = await callback(provider, body);
    assert.equal([reply.status, (await reply.json()).message], [404, SignatureMessages.unknownProvider]);
  }
  assert.is((await callback('externo', { ...body, collectionId: 'f'.repeat(24) })).status, 404);
  assert.is((await callback('externo', { ...body, itemId: 'f'.repeat(24) })).status, 404);
  assert.is((await call('GET', `/v1/collections/${collectionId}`)).body.status, 'SENT');
});

test.run();
