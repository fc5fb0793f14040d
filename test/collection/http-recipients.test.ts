import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { recipientLink } from '../../application/collection/links.ts';
import { CollectionMessages } from '../../domain/collection/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { expireCollection } from '../../application/collection/commands.ts';
import { COLLECTION_PROJECTION } from '../../projections/collection/projection.ts';
import { findRecipientByToken } from '../../projections/collection/queries.ts';
import type { TestApp } from '../support/app.ts';
import { provisionTenant, serviceWithTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';
import { newCnpj } from './support.ts';

const test = suite('collections through HTTP: recipients, links, listing, completion actions');
let app: TestApp;
let tenant: TestTenant;
let other: TestTenant;
const call = serviceWithTenant(test, async (a, t) => {
  app = a;
  tenant = t;
  other = await provisionTenant(a, { name: 'Other organization' });
});

const body = (extra: Record<string, unknown> = {}) => ({
  subject: { name: 'Mercado Central Ltda', document: newCnpj() },
  items: [
    { key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' },
    { key: 'foto', kind: 'CUSTOM', title: 'Foto da fachada' },
  ],
  recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
  send: true,
  ...extra,
});
const create = async (extra: Record<string, unknown> = {}) => (await call('POST', '/v1/collections', body(extra))).body;

test('links: the created token opens its recipient; a reissue returns a new raw link once and the old one stops opening', async () => {
  const c = await create();
  const [link] = c.links;
  assert.equal(await findRecipientByToken(app.app.db, link.token), { organizationId: tenant.organizationId, collectionId: c.id, recipientId: c.recipients[0].id, linkVersion: 1 });
  assert.is(recipientLink(app.app, c.id, c.recipients[0].id, 1).token, link.token, 'the notification process rebuilds the same link');
  const reissued = await call('POST', `/v1/collections/${c.id}/recipients/${c.recipients[0].id}/reissue-link`, {});
  assert.is(reissued.status, 200, JSON.stringify(reissued.body));
  assert.is.not(reissued.body.link.token, link.token);
  assert.is(reissued.body.collection.recipients[0].linkVersion, 2);
  assert.is(await findRecipientByToken(app.app.db, link.token), null);
  assert.is((await findRecipientByToken(app.app.db, reissued.body.link.token))?.linkVersion, 2);
  assert.is(await findRecipientByToken(app.app.db, 'not a token'), null);
  const unknown = await call('POST', `/v1/collections/${c.id}/recipients/aaaaaaaaaaaaaaaaaaaaaaaa/reissue-link`, {});
  assert.equal([unknown.status, unknown.body.message], [404, CollectionMessages.recipientNotFound]);
  const foreign = await call('POST', `/v1/collections/${c.id}/recipients/${c.recipients[0].id}/reissue-link`, {}, other.token);
  assert.equal([foreign.status, foreign.body.message], [404, Messages.collectionNotFound]);
});

test('add a recipient for some items: PENDING, its raw link once; refused on a closed collection', async () => {
  const c = await create();
  const added = await call('POST', `/v1/collections/${c.id}/recipients`, { name: 'Beto Contador', phone: '+5511988887777', itemKeys: ['foto'] });
  assert.is(added.status, 201, JSON.stringify(added.body));
  const beto = added.body.collection.recipients[1];
  assert.equal([beto.name, beto.email, beto.phone, beto.itemIds, beto.status], ['Beto Contador', null, '+5511988887777', [c.items[1].id], 'PENDING']);
  assert.is(added.body.link.recipientId, beto.id);
  assert.is((await findRecipientByToken(app.app.db, added.body.link.token))?.recipientId, beto.id);
  // The notification process may already have invited the new recipient: look the entry up.
  const entry = added.body.collection.trail.find((e: any) => e.action === 'RECIPIENT_ADDED');
  assert.ok(entry, 'RECIPIENT_ADDED in the trail');
  assert.not.match(JSON.stringify(entry.payload), /Beto|5511/);
  const noContact = await call('POST', `/v1/collections/${c.id}/recipients`, { name: 'Sem contato' });
  assert.equal([noContact.status, noContact.body.message], [400, CollectionMessages.recipientWithoutContact]);
  await call('POST', `/v1/collections/${c.id}/cancel`, { reason: 'fim' });
  const closed = await call('POST', `/v1/collections/${c.id}/recipients`, { name: 'Carla', email: 'carla@example.com' });
  assert.equal([closed.status, closed.body.message], [409, Messages.collectionClosed]);
});

test('listing: status, registryId, templateSlug, search by name or document, period, paging', async () => {
  const draft = await create({ send: false, subject: { name: 'Listagem Alfa Ltda', document: newCnpj() } });
  const sent = await create({ subject: { name: 'Listagem Beta Ltda', document: newCnpj() } });
  const templated = await create({ items: undefined, templateSlug: 'kyc-refresh', subject: { name: 'Listagem Gama Ltda', document: newCnpj() } });
  const list = async (query: string) => {
    const reply = await call('GET', `/v1/collections?${query}`);
    assert.is(reply.status, 200, JSON.stringify(reply.body));
    return reply.body;
  };
  const ids = (page: any) => page.items.map((i: any) => i.id);
  assert.equal(ids(await list('search=listagem')), [templated.id, sent.id, draft.id], 'newest first, name in any case');
  assert.equal(ids(await list(`search=listagem&status=DRAFT`)), [draft.id]);
  assert.equal(ids(await list(`registryId=${sent.registryId}`)), [sent.id]);
  assert.equal(ids(await list('templateSlug=kyc-refresh')), [templated.id]);
  assert.equal(ids(await list(`search=${sent.subjectDocument.slice(0, 8)}.${sent.subjectDocument.slice(8)}`)), [sent.id], 'by CNPJ digits');
  const page = await list('search=listagem&skip=1&take=1');
  assert.equal([page.total, page.skip, page.take, ids(page)], [3, 1, 1, [sent.id]]);
  assert.equal(ids(await list(`search=listagem&from=${encodeURIComponent(templated.createdAt)}`)), [templated.id]);
  assert.equal(ids(await list(`search=listagem&to=${encodeURIComponent('2000-01-01T00:00:00.000Z')}`)), []);
  const summary = (await list('search=Gama')).items[0];
  assert.equal([summary.templateSlug, summary.templateName, summary.itemsTotal, summary.status], ['kyc-refresh', templated.templateName, templated.itemsTotal, 'SENT']);
  assert.is('recipients' in summary, false, 'the listing shows summaries');
  const bad = await call('GET', '/v1/collections?status=NOPE');
  assert.equal([bad.status, bad.body.message], [400, 'status must be one of the following values: DRAFT, SENT, IN_PROGRESS, COMPLETED, EXPIRED, CANCELED']);
});

test('completion with onCompleted POLICY: a report under the template policy for the subject, once', async () => {
  const policy = await call('POST', '/credit-policy/policy', DEMO_CNPJ_POLICY);
  assert.is(policy.status, 200, JSON.stringify(policy.body));
  const template = await call('POST', '/v1/collection-templates', {
    slug: 'with-policy',
    name: 'Com política',
    items: [{ key: 'foto', kind: 'CUSTOM', title: 'Foto da fachada' }],
    onCompleted: { kind: 'POLICY', id: policy.body.id },
  });
  assert.is(template.status, 201, JSON.stringify(template.body));
  const c = await create({ items: undefined, templateSlug: 'with-policy' });
  assert.equal(c.behavior.onCompleted, { kind: 'POLICY', id: policy.body.id });
  const waived = await call('POST', `/v1/collections/${c.id}/items/${c.items[0].id}/waive`, {});
  assert.is(waived.body.status, 'COMPLETED');
  const report = await eventually(async () => (await app.app.db('report_reports').where({ organization_id: tenant.organizationId, external_id: c.id }).first()) ?? undefined, {
    timeoutMs: 20_000,
    what: 'report',
  });
  assert.equal([report.document, report.policy_id], [c.subjectDocument, policy.body.id]);
});

test('expiry: with a clock before the deadline expireCollection is a no-op; at the deadline it moves the collection and its open items to EXPIRED', async () => {
  const c = await create({ notificationChannel: 'EMAIL', expiryDays: 10, reminderDays: [3, 7] });
  const at = (days: number) => new Date(Date.parse(c.sentAt) + days * 86_400_000 + 1000).toISOString();
  const later = (days: number) => ({ store: app.app.store, clock: { now: () => new Date(at(days)) } });
  const early = await expireCollection(later(5), { organizationId: tenant.organizationId, collectionId: c.id });
  assert.equal([early.position, early.state.status], [null, 'SENT']);
  const expired = await expireCollection(later(10), { organizationId: tenant.organizationId, collectionId: c.id });
  assert.equal([expired.state.status, expired.state.items.map((i) => i.status)], ['EXPIRED', ['EXPIRED', 'EXPIRED']]);
  await app.app.readYourWrites([COLLECTION_PROJECTION], expired.position);
  assert.is((await call('GET', `/v1/collections/${c.id}`)).body.status, 'EXPIRED');
});

test.run();
