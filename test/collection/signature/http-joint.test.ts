import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectionStream } from '../../../domain/collection/events.ts';
import { SignatureMessages } from '../../../domain/collection/messages.ts';
import type { TestApp } from '../../support/app.ts';
import { serviceWithTenant, type TestTenant } from '../../support/identity.ts';
import { eventually } from '../../support/wait.ts';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.ts';
import { receiverAccepts } from '../../support/webhook-verifier.ts';
import { approvedImages, rejectedImages } from '../identity/images.ts';
import { detailWhen } from '../support.ts';
import { codeSentTo, page, passIdentity, registryWithContract, stepOf, submit, tokenOf } from './http-support.ts';

const test = suite('signatures through HTTP: a JOINT contract signed by three parties in order, identity first, codes from the outbox');
let app: TestApp;
let tenant: TestTenant;
let receiver: Receiver;
let secret: string;
const EVENTS = ['collection.signature.collected', 'collection.signature.completed', 'collection.signature.document', 'collection.completed'];
const call = serviceWithTenant(test, async (a, t) => {
  app = a;
  tenant = t;
  receiver = await startReceiver();
  const subscription = await a.call('POST', '/v1/webhook/subscriptions', { token: t.token, body: { url: `${receiver.url}/named`, events: EVENTS } });
  assert.is(subscription.status, 201, JSON.stringify(subscription.body));
  secret = subscription.body.secret;
});
test.after(() => receiver?.close());

const PARTIES = [
  { name: 'Ana Sócia', email: 'ana@example.com', channel: 'EMAIL' as const },
  { name: 'Bruno Avalista', email: 'bruno@example.com', channel: 'EMAIL' as const },
  { name: 'Carla Cônjuge', email: 'carla@example.com', phone: '+5511999998888', channel: 'PHONE' as const },
];

test('three parties sign in order, each after an identity check and a one-time code; the last signature completes; the signed copy resolves the item and the collection', async () => {
  const { subject, registryDocumentId } = await registryWithContract(app, tenant);
  const created = await call('POST', '/v1/collections', {
    subject,
    items: [{ key: 'contrato', kind: 'SIGNATURE', title: 'Contrato de crédito', config: { signature: { mode: 'JOINT', flow: 'SIGNATURE_AND_IDENTITY', ordered: true, registryDocumentId } } }],
    recipients: PARTIES.map(({ channel: _, ...p }) => p),
    notificationChannel: 'NONE',
    send: true,
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const c = created.body;
  const itemId: string = c.items[0].id;
  const [ana, bruno, carla] = c.recipients.map((r: any) => r.id) as string[];
  const tokens = c.links.map(tokenOf) as string[];
  assert.match(c.items[0].config.signature.documentSha256, /^[0-9a-f]{64}$/);

  // Bruno's turn has not come: the page says whom it waits for, and a code is refused.
  assert.is(stepOf(await page(app, tokens[1]!)), 'waiting');
  assert.match(await page(app, tokens[1]!), /Aguardando a assinatura de Ana Sócia\./);
  const early = await app.call('POST', `/c/${tokens[1]}/items/${itemId}/signature/code`, { body: { channel: 'EMAIL' } });
  assert.equal([early.status, early.body.message], [409, SignatureMessages.awaitingTurn('Ana Sócia')]);

  for (const [index, party] of PARTIES.entries()) {
    const token = tokens[index]!;
    assert.is(stepOf(await page(app, token)), 'identity', `${party.name}: identity before the signature`);
    if (index === 1) {
      // A rejected check leaves the identity step, with the evaluation, until one passes.
      assert.is(await passIdentity(app, token, itemId, rejectedImages()), 303);
      const again = await page(app, token);
      assert.equal([stepOf(again), /Identidade não confirmada/.test(again)], ['identity', true]);
    }
    assert.is(await passIdentity(app, token, itemId, approvedImages()), 303);
    assert.is(stepOf(await page(app, token)), 'code');
    assert.equal((await submit(app, token, itemId, 'code', { channel: party.channel })).status, 303);
    const code = await codeSentTo(app, c.id, party.channel === 'EMAIL' ? party.email : party.phone!, party.channel === 'EMAIL' ? 'EMAIL' : 'WHATSAPP');
    if (index === 0) {
      const wrong = await submit(app, token, itemId, 'verify', { code: code === '000000' ? '111111' : '000000' });
      assert.is(wrong.status, 400);
      assert.match(wrong.text, /Código incorreto\. Restam 4 tentativa\(s\)\./);
    }
    assert.is((await submit(app, token, itemId, 'verify', { code })).status, 303);
    assert.is(stepOf(await page(app, token)), 'sign');
    assert.is((await submit(app, token, itemId, 'sign')).status, 303);
    if (index < 2) assert.is(stepOf(await page(app, token)), 'signed');
  }
  assert.is(stepOf(await page(app, tokens[0]!)), 'completed');

  // The signed copy (the signed-document worker's part) resolves the item and completes the collection.
  const signed = await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.status === 'COMPLETED', 'completion');
  const item = signed.items[0];
  assert.is(item.status, 'VALIDATED');
  const { signedCopies, ...signature } = item.details.signature;
  // One joint copy, PAdES B-B: no TSA configured here (docs/signatures.md).
  assert.equal(
    signedCopies.map((copy: any) => [copy.recipientId, copy.signature.level, copy.signature.timestampedAt]),
    [[null, 'B-B', null]],
  );
  assert.equal(
    { ...signature, parties: signature.parties.map((p: any) => [p.recipientId, p.order, p.contactVerified, p.signedAt !== null, p.declined]) },
    {
      progress: '3 de 3 assinaturas coletadas',
      parties: [
        [ana, 1, true, true, false],
        [bruno, 2, true, true, false],
        [carla, 3, true, true, false],
      ],
      emailsOffered: 3,
      pdfCopyAvailable: true,
      signedDocumentAvailable: true,
      documentSha256: item.config.signature.documentSha256,
      completedAt: item.details.signature.completedAt,
    },
  );
  assert.equal(
    item.details.identity.checks.map((check: any) => check.verdict),
    ['APROVADO', 'REPROVADO', 'APROVADO', 'APROVADO'],
  );
  const actions = signed.trail.map((e: any) => e.action).reverse();
  // Ana's wrong code was refused and left nothing in the trail.
  assert.equal(
    actions.filter((a: string) => a.startsWith('SIGNATURE_')),
    [
      'SIGNATURE_CODE_SENT',
      'SIGNATURE_CONTACT_VERIFIED',
      'SIGNATURE_COLLECTED',
      'SIGNATURE_CODE_SENT',
      'SIGNATURE_CONTACT_VERIFIED',
      'SIGNATURE_COLLECTED',
      'SIGNATURE_CODE_SENT',
      'SIGNATURE_CONTACT_VERIFIED',
      'SIGNATURE_COLLECTED',
      'SIGNATURE_COMPLETED',
      'SIGNATURE_DOCUMENT_GENERATED',
    ],
  );

  const deliveries = await eventually(
    async () => {
      const mine = receiver.received.map((r) => ({ r, body: JSON.parse(r.body) })).filter(({ body }) => body.data?.collectionId === c.id);
      return mine.length >= 6 ? mine : undefined;
    },
    { timeoutMs: 20_000, what: 'the signature webhooks' },
  );
  for (const { r } of deliveries) assert.ok(receiverAccepts(secret, r.headers, r.body));
  const named = (event: string) => deliveries.filter(({ body }) => body.event === event).map(({ body }) => body.data);
  const collected = named('collection.signature.collected');
  assert.equal(
    collected.map((d: any) => [d.recipientId, d.payload.order, d.payload.contactChannel]),
    [
      [ana, 1, 'EMAIL'],
      [bruno, 2, 'EMAIL'],
      [carla, 3, 'PHONE'],
    ],
  );
  assert.equal(Object.keys(collected[0]).sort(), ['action', 'actorType', 'collectionId', 'itemId', 'occurredAt', 'payload', 'recipientId']);
  assert.equal(
    [collected[0].action, collected[0].actorType, collected[0].itemId, collected[0].payload.documentSha256],
    ['SIGNATURE_COLLECTED', 'RECIPIENT', itemId, item.config.signature.documentSha256],
  );
  const [completed] = named('collection.signature.completed');
  // Carla's signature was the last: the completion it caused names her, as the entry before it does.
  assert.equal(
    [completed.action, completed.actorType, completed.itemId, completed.recipientId, completed.payload],
    ['SIGNATURE_COMPLETED', 'RECIPIENT', itemId, carla, { provider: 'interno', parties: [ana, bruno, carla], contentHash: item.config.signature.documentSha256, signedDocument: true }],
  );
  const document = named('collection.signature.document')[0].payload;
  // The contract's provider and sha256, and (added) the PAdES level the copy reached.
  assert.equal([document.provider, Object.keys(document).sort(), document.signature.level], ['interno', ['blobId', 'provider', 'sha256', 'signature'], 'B-B']);
  assert.match(document.sha256, /^[0-9a-f]{64}$/);
  assert.is(named('collection.completed').length, 1);
  // The evidence's personal parts never leave in a webhook, and are sealed in the store.
  for (const { r } of deliveries) assert.not.match(r.body, /Navegador de Teste|127\.0\.0\.1|ana@example|Ana Sócia/);
  const raw = JSON.stringify(
    await app.app
      .db('events')
      .where({ stream_name: collectionStream(c.id), event_type: 'SignatureCollected' })
      .select('data'),
  );
  assert.not.match(raw, /Navegador de Teste/);
  const opened = (await app.app.store.readStream(collectionStream(c.id))).filter((e) => e.type === 'SignatureCollected');
  assert.equal(
    opened.map((e) => (e.data as { evidence: { userAgent: string; contactChannel: string } }).evidence.userAgent),
    ['Navegador de Teste/1.0', 'Navegador de Teste/1.0', 'Navegador de Teste/1.0'],
  );
});

test.run();
