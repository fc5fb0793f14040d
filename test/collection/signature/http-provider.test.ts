import { createHmac } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectionStream } from '../../../domain/collection/events.ts';
import { SignatureMessages } from '../../../domain/collection/messages.ts';
import { Messages } from '../../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { provisionTenant, type TestTenant } from '../../support/identity.ts';
import { eventually } from '../../support/wait.ts';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.ts';
import { detailWhen } from '../support.ts';
import { registryWithContract } from './http-support.ts';

const test = suite("signatures through HTTP: an external provider's signed callbacks cancel or expire the collection");
const SECRET = 'segredo-do-provedor-0123456789';
const OTHER_SECRET = 'segredo-do-outro-provedor-9876543210';
let app: TestApp;
let tenant: TestTenant;
let receiver: Receiver;

test.before(async () => {
  app = await startTestApp({ SIGNATURE_PROVIDERS: `externo:${SECRET},outro:${OTHER_SECRET}` });
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

let envelopes = 0;

/** A collection whose SIGNATURE item went to an envelope of provider `externo` (null: one that never used a provider). */
async function signing(owner = tenant, withEnvelope = true) {
  const { subject, registryDocumentId } = await registryWithContract(app, owner);
  const envelopeId = `env-${++envelopes}`;
  const signature = { mode: 'JOINT', flow: 'SIGNATURE', registryDocumentId, ...(withEnvelope && { externalEnvelope: { provider: 'externo', envelopeId } }) };
  const reply = await app.call('POST', '/v1/collections', {
    token: owner.token,
    body: {
      subject,
      items: [{ key: 'contrato', kind: 'SIGNATURE', title: 'Contrato', config: { signature } }],
      recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
      notificationChannel: 'NONE',
      send: true,
    },
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return { collectionId: reply.body.id as string, itemId: reply.body.items[0].id as string, envelopeId };
}

const NEW_PATH = (provider: string) => `/callbacks/signature-providers/${provider}`;
const OLD_PATH = (provider: string) => `/v1/signature-providers/${provider}/callbacks`;

/**
 * A callback as a provider sends it: the HMAC over "<timestamp>.<the bytes sent>". `sent` replaces
 * the bytes after signing (a body changed in transit); `path` picks the route (the new one by default).
 */
function callback(provider: string, body: Record<string, string>, options: { secret?: string; timestamp?: number; sent?: string; path?: (provider: string) => string } = {}) {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signed = JSON.stringify(body, null, 2);
  const signature = createHmac('sha256', options.secret ?? SECRET)
    .update(`${timestamp}.${signed}`)
    .digest('hex');
  return fetch(`${app.url}${(options.path ?? NEW_PATH)(provider)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature-timestamp': timestamp, 'x-signature': `sha256=${signature}` },
    body: options.sent ?? signed,
  });
}

test('envelope.canceled: collection.canceled with reason, provider and itemId; a repeated callback changes nothing', async () => {
  const { collectionId, itemId, envelopeId } = await signing();
  const body = { event: 'envelope.canceled', collectionId, itemId, envelopeId, reason: 'Envelope cancelado pelo remetente.' };
  const reply = await callback('externo', body);
  assert.equal([reply.status, await reply.json()], [200, { recorded: true, status: 'CANCELED' }]);
  const again = await callback('externo', body);
  assert.equal(await again.json(), { recorded: false, status: 'CANCELED' });
  const detail = await detailWhen(app, call, tenant.organizationId, collectionId, (d) => d.status === 'CANCELED', 'the cancel');
  assert.is(detail.cancelReason, 'Envelope cancelado pelo remetente.');
  const delivery = await eventually(async () => receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.data?.collectionId === collectionId), {
    timeoutMs: 20_000,
    what: 'collection.canceled',
  });
  assert.equal(
    [delivery.event, delivery.data.action, delivery.data.actorType, delivery.data.itemId, delivery.data.payload],
    ['collection.canceled', 'COLLECTION_CANCELED', 'SYSTEM', itemId, { reason: 'Envelope cancelado pelo remetente.', provider: 'externo' }],
  );
});

test('envelope.expired at the first path (kept, same answer): collection.expired with the pending items, reason, provider and itemId', async () => {
  const { collectionId, itemId, envelopeId } = await signing();
  const reply = await callback('externo', { event: 'envelope.expired', collectionId, itemId, envelopeId, reason: 'Prazo do envelope encerrado.' }, { path: OLD_PATH });
  assert.equal(await reply.json(), { recorded: true, status: 'EXPIRED' });
  const delivery = await eventually(async () => receiver.received.map((r) => JSON.parse(r.body)).find((b) => b.data?.collectionId === collectionId), { timeoutMs: 20_000, what: 'collection.expired' });
  assert.equal(
    [delivery.event, delivery.data.itemId, delivery.data.payload],
    ['collection.expired', itemId, { expiredItemIds: [itemId], reason: 'Prazo do envelope encerrado.', provider: 'externo' }],
  );
});

test('refused: a wrong secret, a stale timestamp, an unknown provider, interno (no callbacks), an unknown collection; nothing recorded', async () => {
  const { collectionId, itemId, envelopeId } = await signing();
  const body = { event: 'envelope.canceled', collectionId, itemId, envelopeId, reason: 'Cancelado.' };
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

test("a provider's signed callback acts only on the item that recorded its envelope: another tenant's collection, another provider, another envelope are refused and change nothing", async () => {
  const other = await provisionTenant(app, { name: 'Outra Financeira' });
  const stranger = await signing(other, false);
  const foreign = await signing(other);
  const mine = await signing();
  const eventsOf = async (collectionId: string) => (await app.app.store.readStream(collectionStream(collectionId))).length;
  const before = await Promise.all([stranger, foreign, mine].map((c) => eventsOf(c.collectionId)));
  const refusals = [
    ['externo', { ...stranger, envelopeId: mine.envelopeId }, SECRET, 'a collection that never used a provider'],
    ['externo', { ...foreign, envelopeId: mine.envelopeId }, SECRET, "another tenant's envelope, named wrong"],
    ['outro', foreign, OTHER_SECRET, 'another provider than the one recorded'],
    ['externo', { ...mine, itemId: foreign.itemId }, SECRET, 'an item of another collection'],
  ] as const;
  for (const [provider, target, secret, what] of refusals) {
    const reply = await callback(provider, { event: 'envelope.canceled', ...target, reason: 'Cancelado.' }, { secret });
    assert.equal([reply.status, (await reply.json()).message], [404, Messages.collectionNotFound], what);
  }
  assert.equal(await Promise.all([stranger, foreign, mine].map((c) => eventsOf(c.collectionId))), before, 'nothing appended');
  assert.is((await app.call('GET', `/v1/collections/${stranger.collectionId}`, { token: other.token })).body.status, 'SENT');
  assert.is((await app.call('GET', `/v1/collections/${foreign.collectionId}`, { token: other.token })).body.status, 'SENT');
});

test('the signature covers the exact bytes: the same JSON re-ordered or re-spaced after signing is refused at both paths; nothing recorded', async () => {
  const { collectionId, itemId, envelopeId } = await signing();
  const body = { event: 'envelope.canceled', collectionId, itemId, envelopeId, reason: 'Cancelado.' };
  const reordered = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()), null, 2);
  const respaced = JSON.stringify(body);
  for (const path of [NEW_PATH, OLD_PATH]) {
    for (const sent of [reordered, respaced]) {
      assert.equal(JSON.parse(sent), body, 'the same JSON value');
      const reply = await callback('externo', body, { sent, path });
      assert.equal([reply.status, (await reply.json()).message], [401, SignatureMessages.providerSignatureInvalid], `${path('externo')} ${sent}`);
    }
  }
  assert.is((await call('GET', `/v1/collections/${collectionId}`)).body.status, 'SENT');
  assert.is((await callback('externo', body, { path: OLD_PATH })).status, 200, 'the bytes as signed are accepted');
});

test.run();
