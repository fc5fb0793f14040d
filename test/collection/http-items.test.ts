import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { receiveDocument } from '../../application/registry/intake-commands.ts';
import { CollectionMessages } from '../../domain/collection/messages.ts';
import { platformTemplate } from '../../domain/collection-template/platform.ts';
import { findDocumentOnFile } from '../../projections/registry/queries.ts';
import { pdfWith } from '../registry/support.ts';
import type { TestApp } from '../support/app.ts';
import { serviceWithTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { receiverAccepts } from '../support/webhook-verifier.ts';
import { detailWhen, newCnpj, TAX_CERTIFICATE, trailActions, upload, VALID_CONTRACT } from './support.ts';

const test = suite('collections through HTTP: items, analysis, operator, completion');
let app: TestApp;
let tenant: TestTenant;
let receiver: Receiver;
let secret: string;
const call = serviceWithTenant(test, async (a, t) => {
  app = a;
  tenant = t;
  receiver = await startReceiver();
  const subscription = await a.call('POST', '/v1/webhook/subscriptions', { token: t.token, body: { url: `${receiver.url}/named`, events: ['collection.completed', 'collection.item.rejected'] } });
  assert.is(subscription.status, 201, JSON.stringify(subscription.body));
  secret = subscription.body.secret;
});
test.after(() => receiver?.close());

const contract = (extra: Record<string, unknown> = {}) => ({
  subject: { name: 'Padaria Exemplo Ltda', document: newCnpj() },
  items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }],
  recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
  notificationChannel: 'NONE',
  send: true,
  ...extra,
});
const create = async (body: Record<string, unknown>) => {
  const reply = await call('POST', '/v1/collections', body);
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return reply.body;
};

test('AUTOMATIC: a valid file uploaded for the item validates it, completes the collection and collection.completed reaches a real receiver, signed', async () => {
  const c = await create(contract());
  await upload(app, tenant.organizationId, c, 0, 0, VALID_CONTRACT);
  const done = await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.status === 'COMPLETED', 'completion');
  const [item] = done.items;
  assert.equal([item.status, item.opinions.length, item.opinions[0].verdict, item.opinions[0].type], ['VALIDATED', 1, 'VALIDO', 'CONTRATO_SOCIAL']);
  // The keyword analyser's opinion is a sandbox one: it resolved the item only because this is sandbox mode.
  assert.is(item.opinions[0].sandbox, true);
  assert.equal([done.itemsResolved, done.recipients[0].status], [1, 'COMPLETED']);
  assert.equal(done.trail.map((e: any) => e.action).reverse(), ['COLLECTION_CREATED', 'COLLECTION_SENT', 'ITEM_SUBMITTED', 'ITEM_PROCESSING', 'ITEM_ASSESSED', 'COLLECTION_COMPLETED']);
  assert.is(done.trail.find((e: any) => e.action === 'ITEM_SUBMITTED').actorType, 'RECIPIENT');
  const delivery = await eventually(async () => receiver.received.find((r) => r.body.includes(c.id) && JSON.parse(r.body).event === 'collection.completed'), {
    timeoutMs: 20_000,
    what: 'collection.completed delivery',
  });
  assert.ok(receiverAccepts(secret, delivery.headers, delivery.body));
  const data = JSON.parse(delivery.body).data;
  assert.equal([data.collectionId, data.action, data.actorType, data.itemId], [c.id, 'COLLECTION_COMPLETED', 'SYSTEM', null]);
  assert.not.match(delivery.body, /Padaria|ana@example/);
});

test('AUTOMATIC: a file of another type is rejected with a resend request; a new valid file completes', async () => {
  const c = await create(contract());
  await upload(app, tenant.organizationId, c, 0, 0, TAX_CERTIFICATE);
  const rejected = await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.items[0].status === 'REJECTED', 'rejection');
  assert.match(rejected.items[0].resendReason, /CONTRATO_SOCIAL/);
  assert.is(rejected.items[0].opinions[0].verdict, 'INVALIDO');
  await eventually(async () => receiver.received.find((r) => r.body.includes(c.id) && JSON.parse(r.body).event === 'collection.item.rejected'), {
    timeoutMs: 20_000,
    what: 'collection.item.rejected',
  });
  await upload(app, tenant.organizationId, c, 0, 0, VALID_CONTRACT);
  const done = await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.status === 'COMPLETED', 'completion after resend');
  assert.equal(
    done.items[0].opinions.map((o: any) => o.verdict),
    ['INVALIDO', 'VALIDO'],
  );
});

test('REVIEW: the opinion only informs; the item is in the operator queue; reject asks again, approve completes', async () => {
  const c = await create(contract({ resolutionMode: 'REVIEW' }));
  await upload(app, tenant.organizationId, c, 0, 0, VALID_CONTRACT);
  const waiting = await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.items[0].status === 'AWAITING_OPERATOR', 'awaiting operator');
  assert.equal([waiting.itemsAwaitingOperator, waiting.items[0].opinions[0].verdict], [1, 'VALIDO']);
  const queue = await call('GET', '/v1/collections/operator-queue?take=100');
  const entry = queue.body.items.find((e: any) => e.collection.id === c.id);
  assert.equal([entry.item.id, entry.item.status], [c.items[0].id, 'AWAITING_OPERATOR']);
  const review = (body: unknown) => call('POST', `/v1/collections/${c.id}/items/${c.items[0].id}/review`, body);
  const noReason = await review({ decision: 'REJECT' });
  assert.equal([noReason.status, noReason.body.message], [400, CollectionMessages.rejectReasonRequired]);
  const rejected = await review({ decision: 'REJECT', reason: 'Falta a última página.' });
  assert.is(rejected.status, 200, JSON.stringify(rejected.body));
  assert.equal([rejected.body.items[0].status, rejected.body.items[0].resendReason], ['REJECTED', 'Falta a última página.']);
  assert.equal(trailActions(rejected.body.trail).slice(0, 2), ['ITEM_REJECTED', 'ITEM_REVIEWED']);
  const notWaiting = await review({ decision: 'APPROVE' });
  assert.equal([notWaiting.status, notWaiting.body.message], [409, CollectionMessages.itemNotAwaitingOperator]);
  await upload(app, tenant.organizationId, c, 0, 0, VALID_CONTRACT);
  await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.items[0].status === 'AWAITING_OPERATOR', 'awaiting operator again');
  const approved = await review({ decision: 'APPROVE' });
  assert.equal([approved.status, approved.body.status, approved.body.items[0].status], [200, 'COMPLETED', 'VALIDATED']);
});

test('waive: the item counts as resolved; the last one waived completes; waiving again is 409; unknown item 404', async () => {
  const c = await create(
    contract({
      items: [
        { key: 'a', kind: 'CUSTOM', title: 'Foto da fachada' },
        { key: 'b', kind: 'DOCUMENT', title: 'Contrato', expectedType: 'CONTRATO_SOCIAL' },
      ],
    }),
  );
  const waive = (itemId: string) => call('POST', `/v1/collections/${c.id}/items/${itemId}/waive`, { reason: 'Já temos.' });
  const first = await waive(c.items[0].id);
  assert.equal([first.status, first.body.items[0].status, first.body.status], [200, 'WAIVED', 'SENT']);
  assert.equal(first.body.trail.find((e: any) => e.action === 'ITEM_WAIVED').payload, { reason: 'Já temos.' });
  const again = await waive(c.items[0].id);
  assert.equal([again.status, again.body.message], [409, CollectionMessages.itemResolved]);
  const unknown = await waive('aaaaaaaaaaaaaaaaaaaaaaaa');
  assert.equal([unknown.status, unknown.body.message], [404, CollectionMessages.itemNotFound]);
  const last = await waive(c.items[1].id);
  assert.equal([last.body.status, last.body.recipients[0].status], ['COMPLETED', 'NO_ITEMS']);
});

test('a valid document already on file: the template item is born ALREADY_ON_FILE (reuse APPROVED); appliesTo keeps company items only', async () => {
  const company = newCnpj();
  const first = await create(contract({ subject: { name: 'Comércio Exemplo', document: company }, items: [{ key: 'x', kind: 'CUSTOM', title: 'Qualquer' }] }));
  const { registryDocumentId } = await receiveDocument(app.app, {
    organizationId: tenant.organizationId,
    registryId: first.registryId,
    fileName: 'contrato.pdf',
    bytes: await pdfWith([...VALID_CONTRACT, `CNPJ ${company}`]),
    expectedType: 'CONTRATO_SOCIAL',
    source: null,
    actor: { actorType: 'USER', actorId: tenant.userId },
  });
  await eventually(async () => (await findDocumentOnFile(app.app.db, tenant.organizationId, company, 'CONTRATO_SOCIAL', new Date().toISOString())) ?? undefined, {
    timeoutMs: 20_000,
    what: 'document on file',
  });
  const c = await create({ registryId: first.registryId, templateSlug: 'company-onboarding', recipients: [{ name: 'Ana', email: 'ana@example.com' }], send: false });
  assert.equal([c.templateSlug, c.templateName, c.templateVersion], ['company-onboarding', platformTemplate('company-onboarding')!.name, 1]);
  const [contrato, ...others] = c.items;
  assert.equal([contrato.key, contrato.reuseDecision, contrato.reusedDocumentId, contrato.opinions], ['contrato-social', 'APPROVED', registryDocumentId, []]);
  assert.ok(others.every((i: any) => i.status === 'PENDING'));
  const companyItems = platformTemplate('company-onboarding')!.items.filter((i) => i.appliesTo !== 'PF');
  assert.equal(
    c.items.map((i: any) => i.key),
    companyItems.map((i) => i.key),
  );
  assert.equal([c.itemsResolved, c.itemsTotal], [1, c.items.length]);
});

test.run();
