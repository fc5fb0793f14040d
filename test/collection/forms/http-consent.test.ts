import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectionStream } from '../../../domain/collection/events.ts';
import { CollectionMessages as M } from '../../../domain/collection/messages.ts';
import { collectionInputValues } from '../../../projections/collection/inputs-queries.ts';
import type { TestApp } from '../../support/app.ts';
import { serviceWithTenant, type TestTenant } from '../../support/identity.ts';
import { eventually } from '../../support/wait.ts';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.ts';
import { detailWhen, newCnpj } from '../support.ts';
import { companyForm, scrTerm } from './fixtures.ts';
import { BROWSER, deliveryOf, ENVELOPE_FIELDS, openPage, postForm } from './support.ts';

const test = suite('CONSENT items through HTTP: the term on the page, acceptance, stale terms, webhook, input key');
let app: TestApp;
let tenant: TestTenant;
let receiver: Receiver;
const call = serviceWithTenant(test, async (a, t) => {
  app = a;
  tenant = t;
  receiver = await startReceiver();
  const subscription = await a.call('POST', '/v1/webhook/subscriptions', {
    token: t.token,
    body: { url: `${receiver.url}/consents`, events: ['collection.consent.accepted', 'collection.consent.revoked'] },
  });
  assert.is(subscription.status, 201, JSON.stringify(subscription.body));
  const optIn = await a.call('POST', '/webhook', { token: t.token, body: { type: 'OPTIN', url: `${receiver.url}/optin`, apiKey: 'chave-optin' } });
  assert.is(optIn.status, 200, JSON.stringify(optIn.body));
});

/** The legacy OPTIN delivery about `collectionId` (the registration's test message names none). */
const optInDelivery = (collectionId: string, status = 'ACCEPTED') =>
  eventually(async () => receiver.received.find((r) => r.path === '/optin' && r.body.includes(collectionId) && JSON.parse(r.body).data.status === status), {
    timeoutMs: 20_000,
    what: `optin.updated ${status}`,
  });
test.after(() => receiver?.close());

const TEXT = 'Autorizo a consulta ao SCR do Banco Central <em nome da empresa> & de seus sócios.';
/** `withForm`: a second item keeps the collection, and so the link, open after the acceptance. */
const create = async (withForm = false) => {
  const { hash: _ignored, ...term } = scrTerm(TEXT);
  const reply = await call('POST', '/v1/collections', {
    subject: { name: 'Oficina Consentida Ltda', document: newCnpj() },
    items: [
      { key: 'scr', kind: 'CONSENT', title: 'Autorização SCR', config: { consent: { ...term, hash: 'f'.repeat(64) } } },
      ...(withForm ? [{ key: 'ficha', kind: 'FORM', title: 'Ficha', config: { form: companyForm() } }] : []),
    ],
    recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
    notificationChannel: 'NONE',
    send: true,
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return reply.body;
};

test('the page shows the term, its version and hash; unchecked is 400, a stale hash 409; acceptance validates the item and completes', async () => {
  const c = await create();
  const { hash } = scrTerm(TEXT);
  assert.equal(c.items[0].config.consent, { type: 'scr', version: 2, text: TEXT, hash }, 'the service computes the hash, whatever was sent');
  assert.equal(c.items[0].details.consent, {
    acceptedAt: null,
    recipientId: null,
    termHash: null,
    type: 'scr',
    version: 2,
    ip: null,
    userAgent: null,
    revokedAt: null,
    revokedBy: null,
    revocationReason: null,
  });
  const html = await openPage(app, c.links[0].token);
  assert.match(html, 'Autorizo a consulta ao SCR do Banco Central &#60;em nome da empresa&#62; &#38; de seus sócios.');
  assert.match(html, `Versão 2 · SHA-256 <code data-hash>${hash}</code>`);
  assert.match(html, `<input type="hidden" name="termHash" value="${hash}">`);
  assert.match(html, '<input type="checkbox" name="accept" value="true" required');

  const path = `/c/${c.links[0].token}/items/${c.items[0].id}/consent`;
  const unchecked = await postForm(app, path, { termHash: hash });
  assert.is(unchecked.status, 400);
  assert.match(unchecked.html, 'Marque a caixa &#34;Li e aceito o termo&#34; para aceitar.');
  const stale = await postForm(app, path, { accept: 'true', termHash: scrTerm('Versão anterior do termo.').hash });
  assert.is(stale.status, 409);
  assert.match(stale.html, M.consentStale);
  const staleJson = await app.call('POST', path, { body: { accept: true, termHash: 'x' } });
  assert.equal(staleJson.body, { code: 409, message: M.consentStale });
  const types = (await app.app.store.readStream(collectionStream(c.id))).map((e) => e.type);
  assert.equal(types, ['CollectionCreated', 'CollectionSent', 'RecipientOpened'], 'refusals append nothing');

  const accepted = await postForm(app, path, { accept: 'true', termHash: hash });
  assert.equal([accepted.status, accepted.location], [303, `/c/${c.links[0].token}#item-${c.items[0].id}`]);
  const done = await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.status === 'COMPLETED', 'completion');
  const consent = done.items[0].details.consent;
  assert.equal([done.items[0].status, consent.recipientId, consent.termHash, consent.type, consent.version], ['VALIDATED', c.recipients[0].id, hash, 'scr', 2]);
  const entry = done.trail.find((e: any) => e.action === 'CONSENT_ACCEPTED');
  assert.equal([entry.actorType, entry.occurredAt, entry.payload], ['RECIPIENT', consent.acceptedAt, { type: 'scr', version: 2, termHash: hash }]);
  const again = await app.call('POST', path, { body: { accept: true, termHash: hash } });
  assert.is(again.status, 404, 'the link closes with the collection');

  // Who, when and which term are in the trail; the address and user agent only beside it, as evidence.
  const stored = (await app.app.store.readStream(collectionStream(c.id))).find((e) => e.type === 'ConsentAccepted')!;
  assert.equal([typeof stored.data.ip, stored.data.userAgent], ['string', BROWSER]);
  const delivery = await deliveryOf(receiver, 'collection.consent.accepted', c.id);
  assert.equal(Object.keys(delivery.data).sort(), ENVELOPE_FIELDS);
  assert.equal(delivery.data, {
    collectionId: c.id,
    itemId: c.items[0].id,
    recipientId: c.recipients[0].id,
    action: 'CONSENT_ACCEPTED',
    actorType: 'RECIPIENT',
    occurredAt: entry.occurredAt,
    payload: entry.payload,
  });
  assert.not.match(delivery.raw, /NavegadorDeTeste|127\.0\.0\.1/);

  // Consents are the opt-in flow: the legacy OPTIN subscription gets optin.updated in the legacy envelope, without the evidence.
  const optIn = await optInDelivery(c.id);
  assert.is(optIn.headers['api-key'], 'chave-optin');
  assert.equal(JSON.parse(optIn.body), {
    organizationId: tenant.organizationId,
    webhookType: 'OPTIN',
    data: { collectionId: c.id, itemId: c.items[0].id, recipientId: c.recipients[0].id, status: 'ACCEPTED', type: 'scr', version: 2, termHash: hash, occurredAt: entry.occurredAt },
  });
  assert.not.match(optIn.body, /NavegadorDeTeste|127\.0\.0\.1/);

  const inputs = await eventually(
    async () => {
      const values = await collectionInputValues(app.app.db, tenant.organizationId, c.registryId);
      return 'kyc.consentimento_scr' in values && values;
    },
    { timeoutMs: 20_000, what: 'input key' },
  );
  assert.equal(inputs, { 'kyc.consentimento_scr': true });
});

test('a JSON client accepts with accept: true; the addresses and user agent are sealed in the store, the client address by TRUST_PROXY (off: the socket)', async () => {
  const c = await create();
  const reply = await app.call('POST', `/c/${c.links[0].token}/items/${c.items[0].id}/consent`, {
    body: { accept: true, termHash: scrTerm(TEXT).hash },
    headers: { 'user-agent': 'ClienteSelado/2.0', 'x-forwarded-for': '198.51.100.77' },
  });
  assert.equal(reply.body, { itemId: c.items[0].id, status: 'VALIDATED' });
  const raw = await app.app
    .db('events')
    .where({ stream_name: collectionStream(c.id), event_type: 'ConsentAccepted' })
    .first('data');
  assert.match(raw.data.userAgent, /^pd1\./, 'sealed in the store');
  for (const field of ['ip', 'socketAddress', 'forwardedFor']) assert.match(raw.data[field], /^pd1\./, field);
  assert.not.match(JSON.stringify(raw.data), 'ClienteSelado');
  const stored = (await app.app.store.readStream(collectionStream(c.id))).find((e) => e.type === 'ConsentAccepted')!;
  assert.is(stored.data.userAgent, 'ClienteSelado/2.0');
  // The header a client wrote is kept as received, and believed for nothing.
  assert.equal([stored.data.ip, stored.data.socketAddress, stored.data.forwardedFor], ['127.0.0.1', '127.0.0.1', '198.51.100.77']);
});

test("the evidence (address, user agent) is the organization's to read, in the item's details and the trail export; erasing the person erases it there", async () => {
  const c = await create();
  const itemId: string = c.items[0].id;
  const recipientId: string = c.recipients[0].id;
  const reply = await app.call('POST', `/c/${c.links[0].token}/items/${itemId}/consent`, { body: { accept: true, termHash: scrTerm(TEXT).hash }, headers: { 'user-agent': 'ClienteSelado/2.0' } });
  assert.equal(reply.body, { itemId, status: 'VALIDATED' });

  const done = await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.items[0].details.consent.acceptedAt !== null, 'the acceptance');
  const consent = done.items[0].details.consent;
  assert.equal([consent.recipientId, consent.userAgent], [recipientId, 'ClienteSelado/2.0']);
  assert.match(consent.ip, /127\.0\.0\.1/);
  const exportOf = async (format: 'json' | 'csv') => {
    const response = await fetch(`${app.url}/v1/collections/${c.id}/trail/export?format=${format}`, { headers: { authorization: `Bearer ${tenant.token}` } });
    assert.is(response.status, 200);
    return response.text();
  };
  const acceptedEntry = (json: string) => JSON.parse(json).entries.find((e: any) => e.entry.action === 'CONSENT_ACCEPTED');
  const exported = acceptedEntry(await exportOf('json'));
  assert.equal(exported.evidence, { ip: consent.ip, userAgent: 'ClienteSelado/2.0' });
  assert.equal(exported.entry.payload, { type: 'scr', version: 2, termHash: scrTerm(TEXT).hash }, 'the evidence is beside the hashed entry, not in it');
  const csv = (await exportOf('csv')).trimEnd().split('\r\n');
  assert.ok(csv[0]!.endsWith(',evidenceIp,evidenceUserAgent'), csv[0]);
  assert.ok(csv.find((line) => line.includes(',CONSENT_ACCEPTED,'))!.endsWith(`,${consent.ip},ClienteSelado/2.0`));
  // Only the acceptance carries it: the other entries have no evidence.
  assert.equal(JSON.parse(await exportOf('json')).entries.filter((e: any) => 'evidence' in e).length, 1);

  const erased = await call('POST', '/v1/personal-data/erase-recipient', { collectionId: c.id, recipientId });
  assert.is(erased.status, 200, JSON.stringify(erased.body));
  const after = await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.items[0].details.consent.userAgent === null, 'the erasure');
  assert.equal(after.items[0].details.consent, { ...consent, ip: null, userAgent: null }, 'who, when and which term stay');
  const afterExport = acceptedEntry(await exportOf('json'));
  assert.equal([afterExport.evidence, afterExport.entryHash], [{ ip: null, userAgent: null }, exported.entryHash]);
  assert.not.match(await exportOf('csv'), 'ClienteSelado');
});

const inputValue = (registryId: string, value: boolean) =>
  eventually(
    async () => {
      const values = await collectionInputValues(app.app.db, tenant.organizationId, registryId);
      return values['kyc.consentimento_scr'] === value && values;
    },
    { timeoutMs: 20_000, what: `kyc.consentimento_scr ${value}` },
  );

test('the organization records a revocation after the collection closed: the trail, the input turned false, collection.consent.revoked and optin.updated REVOKED', async () => {
  const c = await create();
  const itemId: string = c.items[0].id;
  const path = `/v1/collections/${c.id}/items/${itemId}/consent/revoke`;
  const early = await call('POST', path, { reason: 'pedido por telefone' });
  assert.equal(early.body, { code: 409, message: M.consentNotAccepted }, 'nothing accepted yet');

  const hash = scrTerm(TEXT).hash;
  assert.is((await app.call('POST', `/c/${c.links[0].token}/items/${itemId}/consent`, { body: { accept: true, termHash: hash } })).status, 200);
  await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.status === 'COMPLETED', 'completion');
  await inputValue(c.registryId, true);

  const revoked = await call('POST', path, { reason: 'pedido por telefone' });
  assert.is(revoked.status, 200, JSON.stringify(revoked.body));
  const done = await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.items[0].details.consent.revokedAt !== null, 'the revocation');
  const consent = done.items[0].details.consent;
  assert.equal(
    [done.status, done.items[0].status, consent.termHash, consent.revokedBy, consent.revocationReason],
    ['COMPLETED', 'VALIDATED', hash, 'USER', 'pedido por telefone'],
    'the acceptance stays on record',
  );
  const entry = done.trail.find((e: any) => e.action === 'CONSENT_REVOKED');
  assert.equal(
    [entry.actorType, entry.recipientId, entry.occurredAt, entry.payload],
    ['USER', c.recipients[0].id, consent.revokedAt, { type: 'scr', version: 2, termHash: hash, reason: 'pedido por telefone' }],
  );
  assert.equal(await inputValue(c.registryId, false), { 'kyc.consentimento_scr': false });

  const delivery = await deliveryOf(receiver, 'collection.consent.revoked', c.id);
  assert.equal(delivery.data, { collectionId: c.id, itemId, recipientId: c.recipients[0].id, action: 'CONSENT_REVOKED', actorType: 'USER', occurredAt: entry.occurredAt, payload: entry.payload });
  const optIn = await optInDelivery(c.id, 'REVOKED');
  assert.equal(JSON.parse(optIn.body).data, { collectionId: c.id, itemId, recipientId: c.recipients[0].id, status: 'REVOKED', type: 'scr', version: 2, termHash: hash, occurredAt: entry.occurredAt });

  assert.equal((await call('POST', path, {})).body, { code: 409, message: M.consentAlreadyRevoked });
  const formItem = await call('POST', `/v1/collections/${c.id}/items/${'0'.repeat(24)}/consent/revoke`, {});
  assert.is(formItem.status, 404, JSON.stringify(formItem.body));
  assert.ok(formItem.body.message);
});

test('the person revokes on their page while the link is open: a box to check, then CONSENT_REVOKED by the RECIPIENT', async () => {
  const c = await create(true);
  const token: string = c.links[0].token;
  const itemId: string = c.items[0].id;
  const hash = scrTerm(TEXT).hash;
  assert.equal((await postForm(app, `/c/${token}/items/${itemId}/consent`, { accept: 'true', termHash: hash })).status, 303);
  const html = await openPage(app, token);
  assert.match(html, `action="/c/${token}/items/${itemId}/consent/revoke"`);

  const path = `/c/${token}/items/${itemId}/consent/revoke`;
  const unchecked = await postForm(app, path, {});
  assert.is(unchecked.status, 400);
  assert.match(unchecked.html, 'Marque a caixa &#34;Quero revogar este consentimento&#34; para revogar.');
  const wrongToken = await app.call('POST', `/c/${'x'.repeat(40)}/items/${itemId}/consent/revoke`, { body: { revoke: true } });
  assert.is(wrongToken.status, 404);
  assert.ok(wrongToken.body.message);

  const revoked = await postForm(app, path, { revoke: 'true' });
  assert.equal([revoked.status, revoked.location], [303, `/c/${token}#item-${itemId}`]);
  const done = await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.items[0].details.consent.revokedAt !== null, 'the revocation');
  assert.equal([done.items[0].details.consent.revokedBy, done.items[0].details.consent.revocationReason], ['RECIPIENT', null]);
  assert.match(await openPage(app, token), /revogado em/);
  const again = await app.call('POST', path, { body: { revoke: true } });
  assert.equal(again.body, { code: 409, message: M.consentAlreadyRevoked });
});

test.run();
