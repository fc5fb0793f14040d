import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CollectionMessages } from '../../domain/collection/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import type { TestApp } from '../support/app.ts';
import { provisionTenant, serviceWithTenant, type TestTenant } from '../support/identity.ts';
import { trailActions } from './support.ts';

const test = suite('collections through HTTP: create, send, list, detail, cancel');
let other: TestTenant;
let app: TestApp;
const call = serviceWithTenant(test, async (a) => {
  app = a;
  other = await provisionTenant(a, { name: 'Other organization' });
});

const CNPJ = '11222333000181';
const adHoc = (extra: Record<string, unknown> = {}) => ({
  subject: { name: 'Padaria Exemplo Ltda', document: '11.222.333/0001-81' },
  items: [
    { key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' },
    { key: 'livre', kind: 'CUSTOM', title: 'Foto da fachada', instructions: 'Uma foto com o número visível.' },
  ],
  recipients: [
    { name: 'Ana Sócia', email: 'Ana@Example.com', phone: '+5511999998888', itemKeys: ['contrato'] },
    { name: 'Beto Contador', email: 'beto@example.com' },
  ],
  message: 'Olá! Precisamos destes documentos.',
  send: false,
  ...extra,
});

test('create an ad hoc DRAFT for a subject: registry found or created, detail fields, raw links once', async () => {
  const created = await call('POST', '/v1/collections', { ...adHoc(), organizationId: other.organizationId, unknownField: 1 });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const c = created.body;
  assert.is(c.status, 'DRAFT');
  assert.equal([c.subjectName, c.subjectDocument, c.entityType, c.templateSlug, c.templateName], ['Padaria Exemplo Ltda', CNPJ, 'COMPANY', null, null]);
  assert.match(c.registryId, /^[0-9a-f]{24}$/);
  assert.equal([c.itemsTotal, c.itemsResolved, c.itemsAwaitingOperator], [2, 0, 0]);
  assert.is(c.message, 'Olá! Precisamos destes documentos.');
  assert.equal(c.behavior, { resolutionMode: 'AUTOMATIC', notificationChannel: 'EMAIL', reminderDays: [3, 7], onCompleted: { kind: 'NONE', id: null } });
  assert.is(c.expiryDays, 15);
  assert.equal([c.sentAt, c.expiresAt, c.canceledAt], [null, null, null]);
  assert.equal(
    c.items.map((i: any) => [i.key, i.kind, i.status, i.opinions.length]),
    [
      ['contrato', 'DOCUMENT', 'PENDING', 0],
      ['livre', 'CUSTOM', 'PENDING', 0],
    ],
  );
  const [ana, beto] = c.recipients;
  assert.equal([ana.email, ana.phone, ana.itemIds, ana.status], ['ana@example.com', '+5511999998888', [c.items[0].id], 'PENDING']);
  assert.equal(
    beto.itemIds,
    c.items.map((i: any) => i.id),
  );
  assert.is(c.registry.document, CNPJ);
  assert.equal(
    c.trail.map((e: any) => e.action),
    ['COLLECTION_CREATED'],
  );
  assert.is(c.links.length, 2);
  assert.ok(c.links.every((l: any) => l.url.endsWith(`/c/${l.token}`) && l.token.length >= 40));
  const read = await call('GET', `/v1/collections/${c.id}`);
  assert.is(read.status, 200);
  assert.is('links' in read.body, false, 'the raw links are never shown again');
  assert.not.match(JSON.stringify(read.body), c.links[0].token);
  const again = await call('POST', '/v1/collections', adHoc());
  assert.is(again.body.registryId, c.registryId, 'the same CNPJ is the same registry');
});

test('draft then send: SENT with the deadline; sending twice is 409', async () => {
  const { body: draft } = await call('POST', '/v1/collections', adHoc({ expiryDays: 5 }));
  const sent = await call('POST', `/v1/collections/${draft.id}/send`, {});
  assert.is(sent.status, 200, JSON.stringify(sent.body));
  assert.is(sent.body.status, 'SENT');
  assert.is(Date.parse(sent.body.expiresAt) - Date.parse(sent.body.sentAt), 5 * 86_400_000);
  assert.equal(trailActions(sent.body.trail), ['COLLECTION_SENT', 'COLLECTION_CREATED']);
  const twice = await call('POST', `/v1/collections/${draft.id}/send`, {});
  assert.equal([twice.status, twice.body.message], [409, CollectionMessages.alreadySent]);
});

test('creation refusals: bad CPF/CNPJ, bad phone, unknown template, unknown registry, unknown item key, neither items nor template', async () => {
  const refused = async (body: unknown, status: number, message: string) => {
    const reply = await call('POST', '/v1/collections', body);
    assert.equal([reply.status, reply.body.message], [status, message], JSON.stringify(reply.body));
  };
  await refused(adHoc({ subject: { name: 'X', document: '11222333000182' } }), 400, CollectionMessages.invalidDocument);
  await refused(adHoc({ recipients: [{ name: 'Ana', phone: '11999998888' }] }), 400, CollectionMessages.invalidPhone);
  await refused(adHoc({ items: undefined, templateSlug: 'no-such-template' }), 404, Messages.templateNotFound);
  await refused(adHoc({ subject: undefined, registryId: 'aaaaaaaaaaaaaaaaaaaaaaaa' }), 404, CollectionMessages.registryNotFound);
  await refused(adHoc({ recipients: [{ name: 'Ana', email: 'a@example.com', itemKeys: ['nope'] }] }), 400, CollectionMessages.unknownItemKey);
  await refused(adHoc({ items: [] }), 400, CollectionMessages.templateOrItems);
  await refused(adHoc({ subject: undefined }), 400, CollectionMessages.subjectOrRegistry);
});

test('cancel exactly as the contract: reason <= 500, 404 unknown, 409 closed, 200 with the detail CANCELED', async () => {
  const { body: c } = await call('POST', '/v1/collections', adHoc({ send: true }));
  const long = await call('POST', `/v1/collections/${c.id}/cancel`, { reason: 'x'.repeat(501) });
  assert.equal([long.status, long.body.message], [400, 'reason must be shorter than or equal to 500 characters']);
  const unknown = await call('POST', '/v1/collections/aaaaaaaaaaaaaaaaaaaaaaaa/cancel', { reason: 'x' });
  assert.equal([unknown.status, unknown.body.message], [404, 'Solicitação não encontrada.']);
  const foreign = await call('POST', `/v1/collections/${c.id}/cancel`, { reason: 'x' }, other.token);
  assert.equal([foreign.status, foreign.body.message], [404, 'Solicitação não encontrada.']);
  const canceled = await call('POST', `/v1/collections/${c.id}/cancel`, { reason: 'Cliente desistiu.' });
  assert.is(canceled.status, 200, JSON.stringify(canceled.body));
  assert.is(canceled.body.status, 'CANCELED');
  assert.ok(canceled.body.canceledAt);
  assert.is(canceled.body.cancelReason, 'Cliente desistiu.');
  // By its action, not its place: the recipient's notification, sent when the collection was, may
  // be recorded after the cancel.
  assert.equal(canceled.body.trail.find((e: any) => e.action === 'COLLECTION_CANCELED').payload, { reason: 'Cliente desistiu.' });
  const again = await call('POST', `/v1/collections/${c.id}/cancel`, { reason: 'de novo' });
  assert.equal([again.status, again.body.message], [409, 'Esta solicitação já está encerrada.']);
  const bad = await call('POST', '/v1/collections/not-an-id/cancel', {});
  assert.is(bad.status, 400);
});

test('another tenant sees nothing: detail 404, not in its listing', async () => {
  const { body: c } = await call('POST', '/v1/collections', adHoc());
  const foreign = await call('GET', `/v1/collections/${c.id}`, undefined, other.token);
  assert.equal([foreign.status, foreign.body.message], [404, Messages.collectionNotFound]);
  const list = await call('GET', '/v1/collections', undefined, other.token);
  assert.is(list.body.total, 0);
});

test('without a registry, onboarding or formalization module the routes answer 404 Recurso não encontrado.', async () => {
  const reportsOnly = await provisionTenant(app, { name: 'Reports only', modules: ['reports'] });
  const reply = await call('GET', '/v1/collections', undefined, reportsOnly.token);
  assert.equal([reply.status, reply.body.message], [404, Messages.resourceNotFound]);
});

test.run();
