import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runIdentityCheck } from '../../../application/collection/identity/check.ts';
import { PostgresBlobStore } from '../../../application/blob-store.ts';
import { collectionStream } from '../../../domain/collection/events.ts';
import { IdentityMessages } from '../../../domain/collection/messages.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import type { TestApp } from '../../support/app.ts';
import { serviceWithTenant, type TestTenant } from '../../support/identity.ts';
import { newCnpj } from '../support.ts';
import { approvedImages, rejectedImages, testPng, unavailableImages } from './images.ts';

const test = suite('identity: runIdentityCheck (blob store, provider port, trail)');
let app: TestApp;
let tenant: TestTenant;
const call = serviceWithTenant(test, (a, t) => {
  app = a;
  tenant = t;
});

async function identityCollection() {
  const reply = await call('POST', '/v1/collections', {
    subject: { name: 'Padaria Exemplo Ltda', document: newCnpj() },
    items: [{ key: 'identidade', kind: 'IDENTITY', title: 'Documento com foto e selfie' }],
    recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
    notificationChannel: 'NONE',
    send: true,
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  const c = reply.body;
  return {
    organizationId: tenant.organizationId,
    collectionId: c.id as string,
    itemId: c.items[0].id as string,
    recipientId: c.recipients[0].id as string,
    actor: { actorType: 'RECIPIENT' as const, actorId: c.recipients[0].id as string },
  };
}

async function refusal(run: Promise<unknown>): Promise<DomainError> {
  try {
    await run;
  } catch (error) {
    assert.instance(error, DomainError);
    return error as DomainError;
  }
  return assert.unreachable('expected a refusal') as never;
}

const actions = async (collectionId: string) => (await app.app.store.readStream(collectionStream(collectionId))).map((e) => e.type);

test('approved images: two blobs stored, IDENTITY_CHECK_STARTED then IDENTITY_COMPLETED, the item VALIDATED; no raw payload in the events', async () => {
  const ref = await identityCollection();
  const { check, position, state } = await runIdentityCheck(app.app, { ...ref, ...approvedImages() });
  assert.ok(position);
  assert.equal([check.verdict, check.similarity, check.liveness, check.signals, check.imageCount, check.provider, check.recipientId], ['APROVADO', 0.97, 0.99, [], 2, 'sandbox', ref.recipientId]);
  assert.is(state.items[0]!.status, 'VALIDATED');
  assert.equal(await actions(ref.collectionId), ['CollectionCreated', 'CollectionSent', 'IdentityCheckStarted', 'IdentityCompleted', 'CollectionCompleted']);
  const [started] = state.items[0]!.details.identity!.started;
  const blobs = await Promise.all(started!.imageBlobIds.map((id) => new PostgresBlobStore(app.app.db).get(id)));
  assert.equal(
    blobs.map((b) => [b?.contentType, b?.organizationId]),
    [
      ['image/jpeg', ref.organizationId],
      ['image/png', ref.organizationId],
    ],
  );
  const stored = JSON.stringify((await app.app.store.readStream(collectionStream(ref.collectionId))).map((e) => e.data));
  assert.not.match(stored, /raw|marker|rule/);
});

test('rejected images: REJECTED, and a second check with approved images validates', async () => {
  const ref = await identityCollection();
  const first = await runIdentityCheck(app.app, { ...ref, ...rejectedImages() });
  assert.equal([first.check.verdict, first.check.signals, first.state.items[0]!.status], ['REPROVADO', ['FOTO_DE_TELA'], 'REJECTED']);
  const second = await runIdentityCheck(app.app, { ...ref, ...approvedImages() });
  assert.equal([second.check.verdict, second.state.items[0]!.status, second.state.status], ['APROVADO', 'VALIDATED', 'COMPLETED']);
});

test('provider without a result: upstream refusal, the check stays started, the item PENDING; the person may try again', async () => {
  const ref = await identityCollection();
  const error = await refusal(runIdentityCheck(app.app, { ...ref, ...unavailableImages() }));
  assert.equal([error.kind, error.message], ['upstream', IdentityMessages.providerUnavailable]);
  assert.equal(await actions(ref.collectionId), ['CollectionCreated', 'CollectionSent', 'IdentityCheckStarted']);
  const again = await runIdentityCheck(app.app, { ...ref, ...approvedImages() });
  assert.is(again.state.items[0]!.status, 'VALIDATED');
});

test('not an image, or a refused command: nothing appended and no blob left behind', async () => {
  const ref = await identityCollection();
  const notImage = await refusal(runIdentityCheck(app.app, { ...ref, document: Buffer.from('%PDF-1.4 not an image'), selfie: testPng('APROVADO') }));
  assert.equal([notImage.kind, notImage.message], ['invalid', IdentityMessages.imagesRequired]);
  const blobsBefore = Number((await app.app.db('blobs').count({ n: '*' }).first())!.n);
  const refused = await refusal(runIdentityCheck(app.app, { ...ref, recipientId: 'ffffffffffffffffffffffff', ...approvedImages() }));
  assert.is(refused.kind, 'not_found');
  assert.is(Number((await app.app.db('blobs').count({ n: '*' }).first())!.n), blobsBefore);
  assert.equal(await actions(ref.collectionId), ['CollectionCreated', 'CollectionSent']);
});

test.run();
