import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectionStream } from '../../../domain/collection/events.ts';
import { CollectionMessages, IdentityMessages } from '../../../domain/collection/messages.ts';
import { identityInputValues } from '../../../projections/collection/identity-queries.ts';
import type { TestApp } from '../../support/app.ts';
import { provisionTenant, serviceWithTenant, type TestTenant } from '../../support/identity.ts';
import { eventually } from '../../support/wait.ts';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.ts';
import { detailWhen, newCnpj } from '../support.ts';
import { approvedImages, inconclusiveImages, rejectedImages, testPng, type TestIdentityImages } from './images.ts';

const test = suite('identity checks through HTTP: recipient page, evaluation, image view, webhooks, erasure');
let app: TestApp;
let tenant: TestTenant;
let receiver: Receiver;
const call = serviceWithTenant(test, async (a, t) => {
  app = a;
  tenant = t;
  receiver = await startReceiver();
  const events = ['collection.identity.completed', 'collection.canceled', 'collection.completed'];
  const subscription = await a.call('POST', '/v1/webhook/subscriptions', { token: t.token, body: { url: `${receiver.url}/named`, events } });
  assert.is(subscription.status, 201, JSON.stringify(subscription.body));
});
test.after(() => receiver?.close());

/** A collection with one IDENTITY item for one recipient, and that recipient's link token. */
async function identityCollection(document = newCnpj()) {
  const reply = await call('POST', '/v1/collections', {
    subject: { name: 'Padaria Exemplo Ltda', document },
    items: [
      { key: 'identidade', kind: 'IDENTITY', title: 'Documento com foto e selfie' },
      { key: 'contrato', kind: 'DOCUMENT', title: 'Contrato', expectedType: 'CONTRATO_SOCIAL' },
    ],
    recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
    notificationChannel: 'NONE',
    send: true,
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  const c = reply.body;
  return { id: c.id as string, itemId: c.items[0].id as string, token: new URL(c.links[0].url).pathname.split('/').pop()!, document };
}

function postIdentity(token: string, itemId: string, images: Partial<TestIdentityImages>, accept = 'application/json') {
  const form = new FormData();
  if (images.document) form.set('document', new Blob([new Uint8Array(images.document)]), 'doc.jpg');
  if (images.selfie) form.set('selfie', new Blob([new Uint8Array(images.selfie)]), 'selfie.png');
  return fetch(`${app.url}/c/${token}/items/${itemId}/identity`, { method: 'POST', body: form, headers: { accept }, redirect: 'manual' });
}

const detailItem = async (collectionId: string, what: string, check: (item: any) => boolean) =>
  (await detailWhen(app, call, tenant.organizationId, collectionId, (d) => check(d.items[0]), what)).items[0];

test('the page shows the two pictures with the camera hints; approved images validate the item with the Portuguese evaluation and only the image count', async () => {
  const c = await identityCollection();
  const page = await (await fetch(`${app.url}/c/${c.token}`, { headers: { accept: 'text/html' } })).text();
  assert.match(page, new RegExp(`action="/c/${c.token}/items/${c.itemId}/identity" enctype="multipart/form-data"`));
  assert.match(page, /name="document" accept="image\/jpeg,image\/png" capture="environment"/);
  assert.match(page, /name="selfie" accept="image\/jpeg,image\/png" capture="user"/);
  const reply = await postIdentity(c.token, c.itemId, approvedImages());
  const body = await reply.json();
  assert.is(reply.status, 200, JSON.stringify(body));
  assert.equal([body.verdict, body.status, body.evaluation], ['APROVADO', 'VALIDATED', 'Identidade confirmada: semelhança 97%, prova de vida aprovada']);
  const item = await detailItem(c.id, 'identity validated', (i) => i.status === 'VALIDATED');
  // The sandbox provider's check is marked so; in sandbox mode it still resolves the item.
  assert.equal(
    item.details.identity.checks.map((k: any) => [k.verdict, k.similarity, k.liveness, k.imageCount, k.evaluation, k.sandbox, k.heldForOperator, k.provenance]),
    [['APROVADO', 0.97, 0.99, 2, body.evaluation, true, null, { provider: 'sandbox', sandbox: true }]],
  );
  assert.equal([item.details.identity.imageCount, item.details.identity.checksWithoutResult], [2, 0]);
  const after = await (await fetch(`${app.url}/c/${c.token}`, { headers: { accept: 'text/html' } })).text();
  assert.match(after, /Identidade confirmada: semelhança 97%, prova de vida aprovada/);
  assert.not.match(after, /name="selfie"/);
  const stored = await app.app.store.readStream(collectionStream(c.id));
  const blobIds = stored.flatMap((e) => (e.data.imageBlobIds as string[] | undefined) ?? []);
  assert.is(blobIds.length, 2);
  const detail = JSON.stringify((await call('GET', `/v1/collections/${c.id}`)).body);
  for (const id of blobIds) assert.not.ok(detail.includes(id), 'blob ids never shown');
  assert.equal(await identityInputValues(app.app.db, tenant.organizationId, (await call('GET', `/v1/collections/${c.id}`)).body.registryId), { 'kyc.identidade_aprovada': true });
  const delivery = await eventually(async () => receiver.json().find((r) => r.event === 'collection.identity.completed' && r.data.collectionId === c.id), {
    timeoutMs: 20_000,
    what: 'identity webhook',
  });
  assert.equal(delivery.data.payload, { checkId: body.checkId, provider: 'sandbox', verdict: 'APROVADO', similarity: 0.97, liveness: 0.99, signals: [], imageCount: 2, sandbox: true });
  assert.equal([delivery.data.action, delivery.data.actorType, delivery.data.itemId], ['IDENTITY_COMPLETED', 'RECIPIENT', c.itemId]);
});

test('rejected images from a browser: 303 to the page, REJECTED with the reasons, the pictures asked again; inconclusive: MANUAL_REVIEW in the operator queue', async () => {
  const c = await identityCollection();
  const reply = await postIdentity(c.token, c.itemId, rejectedImages(), 'text/html');
  assert.equal([reply.status, reply.headers.get('location')], [303, `/c/${c.token}?enviado=1`]);
  const item = await detailItem(c.id, 'identity rejected', (i) => i.status === 'REJECTED');
  assert.is(item.resendReason, 'Identidade não confirmada: semelhança 12%, prova de vida aprovada; sinais: a selfie parece ser a foto de uma tela');
  const page = await (await fetch(`${app.url}/c/${c.token}`, { headers: { accept: 'text/html' } })).text();
  assert.match(page, /sinais: a selfie parece ser a foto de uma tela/);
  assert.match(page, /name="selfie"/);
  const inconclusive = await postIdentity(c.token, c.itemId, inconclusiveImages());
  assert.equal((await inconclusive.json()).status, 'MANUAL_REVIEW');
  await detailItem(c.id, 'manual review', (i) => i.status === 'MANUAL_REVIEW');
  const queue = await call('GET', '/v1/collections/operator-queue?take=100');
  assert.ok(queue.body.items.some((e: any) => e.item.id === c.itemId && e.item.details.identity.checks.length === 2));
  const again = await postIdentity(c.token, c.itemId, approvedImages());
  assert.equal([again.status, (await again.json()).message], [409, IdentityMessages.notAwaitingCheck]);
});

test('refused uploads: a non-image, a missing selfie, another item kind; nothing recorded', async () => {
  const c = await identityCollection();
  const pdf = await postIdentity(c.token, c.itemId, { document: Buffer.from('%PDF-1.4\n%%EOF'), selfie: testPng('APROVADO') });
  assert.equal([pdf.status, (await pdf.json()).message], [400, IdentityMessages.imagesRequired]);
  const missing = await postIdentity(c.token, c.itemId, { document: testPng('APROVADO') });
  assert.equal([missing.status, (await missing.json()).message], [400, 'Envie o arquivo no campo selfie (multipart/form-data).']);
  const detail = (await call('GET', `/v1/collections/${c.id}`)).body;
  const documentItem = detail.items[1].id;
  const notIdentity = await postIdentity(c.token, documentItem, approvedImages());
  assert.equal([notIdentity.status, (await notIdentity.json()).message], [400, IdentityMessages.notAnIdentityItem]);
  assert.equal(
    (await app.app.store.readStream(collectionStream(c.id))).map((e) => e.type),
    ['CollectionCreated', 'CollectionSent'],
  );
});

test('image view: the bytes for the operator, IDENTITY_IMAGES_VIEWED in the trail, never in a webhook; erasing the subject deletes the images and masks the listing', async () => {
  const c = await identityCollection();
  const images = approvedImages();
  const { checkId } = await (await postIdentity(c.token, c.itemId, images)).json();
  const path = `/v1/collections/${c.id}/items/${c.itemId}/identity-checks/${checkId}/images`;
  const document = await fetch(`${app.url}${path}/0`, { headers: { authorization: `Bearer ${tenant.token}` } });
  assert.equal([document.status, document.headers.get('content-type'), document.headers.get('cache-control')], [200, 'image/jpeg', 'no-store']);
  assert.ok(Buffer.from(await document.arrayBuffer()).equals(images.document));
  const selfie = await fetch(`${app.url}${path}/1`, { headers: { authorization: `Bearer ${tenant.token}` } });
  assert.ok(Buffer.from(await selfie.arrayBuffer()).equals(images.selfie));
  assert.is((await call('GET', `${path}/2`)).status, 400);
  const unknown = await call('GET', `/v1/collections/${c.id}/items/${c.itemId}/identity-checks/ffffffffffffffffffffffff/images/0`);
  assert.equal([unknown.status, unknown.body.message], [404, IdentityMessages.checkNotFound]);
  const trail = await detailWhen(app, call, tenant.organizationId, c.id, () => true, 'trail');
  const views = trail.trail.filter((e: any) => e.action === 'IDENTITY_IMAGES_VIEWED');
  assert.equal(
    views.map((e: any) => [e.actorType, e.payload.checkId, e.itemId]),
    [
      ['USER', checkId, c.itemId],
      ['USER', checkId, c.itemId],
    ],
  );
  // A later public event of the same collection: once it arrived, anything before it would have too.
  assert.is((await call('POST', `/v1/collections/${c.id}/cancel`, { reason: 'teste' })).status, 200);
  await eventually(async () => receiver.json().find((r) => r.event === 'collection.canceled' && r.data.collectionId === c.id), { timeoutMs: 20_000, what: 'canceled webhook' });
  const mine = receiver.json().filter((r) => r.data?.collectionId === c.id);
  assert.equal(mine.map((r) => r.data.action).sort(), ['COLLECTION_CANCELED', 'IDENTITY_COMPLETED']);

  const listed = async () => (await call('GET', '/v1/identity-validations?take=100')).body.items.find((v: any) => v.checkId === checkId);
  await eventually(listed, { timeoutMs: 10_000, what: 'listed check' });
  const digits = c.document;
  assert.is((await listed()).document, `**.${digits.slice(2, 5)}.${digits.slice(5, 8)}/****-**`);
  const erased = await call('POST', '/v1/personal-data/erase', { document: c.document, type: 'cnpj' });
  assert.is(erased.status, 200, JSON.stringify(erased.body));
  const blobIds = (await app.app.store.readStream(collectionStream(c.id))).flatMap((e) => (e.data.imageBlobIds as string[] | undefined) ?? []);
  assert.is(blobIds.length, 2);
  assert.equal(await app.app.db('blobs').whereIn('id', blobIds).select('id'), []);
  // The erased collection keeps no items (its definition reads as erased): the image is 404 either way.
  assert.is((await call('GET', `${path}/0`)).status, 404);
  // The erased person's checks leave the listing with their images.
  await eventually(async () => (await listed()) === undefined, { timeoutMs: 10_000, what: 'the check dropped after erasure' });
});

test('an organization without kyc asking for an identity check: 403 naming the item, and no registry created for the subject', async () => {
  const noKyc = await provisionTenant(app, { name: 'Sem kyc', modules: ['registry', 'onboarding', 'formalization'] });
  const document = newCnpj();
  const create = (items: unknown[]) =>
    app.call('POST', '/v1/collections', {
      token: noKyc.token,
      body: { subject: { name: 'Padaria Sem Kyc Ltda', document }, items, recipients: [{ name: 'Ana', email: 'ana@example.com' }], notificationChannel: 'NONE', send: false },
    });
  const identity = await create([
    { key: 'contrato', kind: 'DOCUMENT', title: 'Contrato', expectedType: 'CONTRATO_SOCIAL' },
    { key: 'selfie', kind: 'IDENTITY', title: 'Documento com foto e selfie' },
  ]);
  assert.equal([identity.status, identity.body], [403, { code: 403, message: CollectionMessages.itemNotContracted('selfie', 'IDENTITY', 'kyc') }]);
  const signature = { signature: { mode: 'JOINT', flow: 'SIGNATURE_AND_IDENTITY', registryDocumentId: '0'.repeat(24) } };
  const signing = await create([{ key: 'assinatura', kind: 'SIGNATURE', title: 'Contrato', config: signature }]);
  assert.equal([signing.status, signing.body], [403, { code: 403, message: CollectionMessages.itemNotContracted('assinatura', 'SIGNATURE', 'kyc') }]);
  const registries = await app.call('GET', `/v1/registry?search=${document}`, { token: noKyc.token });
  assert.equal([registries.status, registries.body.total], [200, 0], JSON.stringify(registries.body));
  const documentsOnly = await create([{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato', expectedType: 'CONTRATO_SOCIAL' }]);
  assert.is(documentsOnly.status, 201, JSON.stringify(documentsOnly.body));
});

test.run();
