import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectionStream } from '../../../domain/collection/events.ts';
import { CollectionMessages, IdentityMessages } from '../../../domain/collection/messages.ts';
import { Messages } from '../../../domain/shared/messages.ts';
import type { TestApp } from '../../support/app.ts';
import { serviceWithTenant, provisionTenant, type TestTenant } from '../../support/identity.ts';
import { eventually } from '../../support/wait.ts';
import { newCnpj } from '../support.ts';
import { approvedImages, type TestIdentityImages } from './images.ts';

const test = suite("identity checks: a recipient's own erasure deletes their images and their checks' rows, nobody else's");
let app: TestApp;
let tenant: TestTenant;
const call = serviceWithTenant(test, (a, t) => {
  app = a;
  tenant = t;
});

/** Two partners, each with an IDENTITY item of their own, both checks approved. */
async function twoChecks() {
  const reply = await call('POST', '/v1/collections', {
    subject: { name: 'Padaria Exemplo Ltda', document: newCnpj() },
    items: [
      { key: 'ana', kind: 'IDENTITY', title: 'Identidade de Ana' },
      { key: 'bruno', kind: 'IDENTITY', title: 'Identidade de Bruno' },
    ],
    recipients: [
      { name: 'Ana Sócia', email: 'ana@example.com', itemKeys: ['ana'] },
      { name: 'Bruno Sócio', email: 'bruno@example.com', itemKeys: ['bruno'] },
    ],
    notificationChannel: 'NONE',
    send: true,
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  const c = reply.body;
  const checks: Array<{ checkId: string; itemId: string; recipientId: string }> = [];
  for (const index of [0, 1]) {
    const token = new URL(c.links[index].url).pathname.split('/').pop()!;
    const itemId = c.items[index].id as string;
    const posted = await fetch(`${app.url}/c/${token}/items/${itemId}/identity`, { method: 'POST', body: form(approvedImages()), headers: { accept: 'application/json' } });
    const body = await posted.json();
    assert.is(posted.status, 200, JSON.stringify(body));
    checks.push({ checkId: body.checkId, itemId, recipientId: c.recipients[index].id });
  }
  return { collectionId: c.id as string, checks };
}

function form(images: TestIdentityImages) {
  const data = new FormData();
  data.set('document', new Blob([new Uint8Array(images.document)]), 'doc.jpg');
  data.set('selfie', new Blob([new Uint8Array(images.selfie)]), 'selfie.png');
  return data;
}

const imagePath = (collectionId: string, check: { itemId: string; checkId: string }, index: number) =>
  `/v1/collections/${collectionId}/items/${check.itemId}/identity-checks/${check.checkId}/images/${index}`;
const listed = async (checkId: string) => (await call('GET', '/v1/identity-validations?take=100')).body.items.some((v: any) => v.checkId === checkId);

test("erasing Ana (a recipient) deletes her two images and her check's row; Bruno's stay; the trail keeps the facts; repeated: nothing more", async () => {
  const { collectionId, checks } = await twoChecks();
  const [ana, bruno] = checks as [(typeof checks)[0], (typeof checks)[0]];
  await eventually(async () => (await listed(ana.checkId)) && (await listed(bruno.checkId)), { timeoutMs: 10_000, what: 'both checks listed' });
  const blobsOf = async (recipientId: string) =>
    (await app.app.db('collection_identity_validations').where({ recipient_id: recipientId }).first('image_blob_ids'))?.image_blob_ids as string[] | undefined;
  const anaBlobs = (await blobsOf(ana.recipientId))!;
  const brunoBlobs = (await blobsOf(bruno.recipientId))!;
  assert.equal([anaBlobs.length, brunoBlobs.length], [2, 2]);

  const erased = await call('POST', '/v1/personal-data/erase-recipient', { collectionId, recipientId: ana.recipientId });
  assert.equal([erased.status, erased.body.keysErased > 0, erased.body.imagesDeleted], [200, true, 2], JSON.stringify(erased.body));
  assert.equal(await app.app.db('blobs').whereIn('id', anaBlobs).select('id'), [], "Ana's images are gone");
  assert.is((await app.app.db('blobs').whereIn('id', brunoBlobs).select('id')).length, 2, "Bruno's stay");
  // The route answered after the identity read model applied the erasure.
  assert.equal([await listed(ana.checkId), await listed(bruno.checkId)], [false, true]);
  assert.is(await blobsOf(ana.recipientId), undefined, "Ana's row is gone");
  const view = await call('GET', imagePath(collectionId, ana, 0));
  assert.equal([view.status, view.body.message], [404, IdentityMessages.imageNotFound]);
  assert.is((await fetch(`${app.url}${imagePath(collectionId, bruno, 1)}`, { headers: { authorization: `Bearer ${tenant.token}` } })).status, 200);

  // The stream reads her image ids as erased; the trail still says a check happened and how it ended.
  const events = await app.app.store.readStream(collectionStream(collectionId));
  const started = events.filter((e) => e.type === 'IdentityCheckStarted').map((e) => [e.data.recipientId, (e.data.imageBlobIds as string[]).length]);
  assert.equal(started, [
    [ana.recipientId, 0],
    [bruno.recipientId, 2],
  ]);
  assert.is(events.filter((e) => e.type === 'IdentityCompleted').length, 2);

  const again = await call('POST', '/v1/personal-data/erase-recipient', { collectionId, recipientId: ana.recipientId });
  assert.equal([again.status, again.body.keysErased, again.body.imagesDeleted], [200, 0, 0]);
});

test('refused: another organization, an unknown recipient, malformed ids', async () => {
  const { collectionId, checks } = await twoChecks();
  const other = await provisionTenant(app);
  const foreign = await app.call('POST', '/v1/personal-data/erase-recipient', { token: other.token, body: { collectionId, recipientId: checks[0]!.recipientId } });
  assert.equal([foreign.status, foreign.body.message], [404, Messages.collectionNotFound]);
  const unknown = await call('POST', '/v1/personal-data/erase-recipient', { collectionId, recipientId: 'f'.repeat(24) });
  assert.equal([unknown.status, unknown.body.message], [404, CollectionMessages.recipientNotFound]);
  assert.is((await call('POST', '/v1/personal-data/erase-recipient', { collectionId: 'x', recipientId: checks[0]!.recipientId })).status, 400);
  assert.ok(await listed(checks[0]!.checkId), 'nothing erased');
});

test.run();
