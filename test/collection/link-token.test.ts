import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { linkClaim, recipientLink } from '../../application/collection/links.ts';
import { findRecipientByToken } from '../../projections/collection/queries.ts';
import type { TestApp } from '../support/app.ts';
import { serviceWithTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';
import { newCnpj } from './support.ts';

const test = suite('collections: a recipient link names its collection, so it opens without the read model');
let app: TestApp;
const call = serviceWithTenant(test, (a) => {
  app = a;
});

const page = (token: string) => fetch(`${app.url}/c/${token}`, { headers: { accept: 'text/html' } });

async function createCollection() {
  const created = await call('POST', '/v1/collections', {
    subject: { name: 'Padaria Aurora Ltda', document: newCnpj() },
    items: [{ kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }],
    recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
    send: true,
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

test('the token carries the collection and recipient ids; a link opens with no row in collection_links', async () => {
  const c = await createCollection();
  const token: string = c.links[0].token;
  assert.equal(linkClaim(token), { collectionId: c.id, recipientId: c.recipients[0].id });
  // As if the read model had not caught up: wait for its row, then take it away.
  await eventually(async () => (await findRecipientByToken(app.app.db, token)) !== null, { timeoutMs: 20_000, what: 'the link row' });
  await app.app.db('collection_links').where({ collection_id: c.id }).delete();
  const opened = await page(token);
  assert.is(opened.status, 200);
  const html = await opened.text();
  assert.match(html, 'Contrato social');
  // A sandbox deployment (the test default): the recipient is told the page is a test environment.
  assert.match(html, /<p class="erro" role="alert" data-sandbox><strong>AMBIENTE DE TESTES: dados fictícios<\/strong>/);
});

test('a token with its MAC changed, another recipient id or an old version gets the invalid-link page', async () => {
  const c = await createCollection();
  const token: string = c.links[0].token;
  const bytes = Buffer.from(token, 'base64url');
  bytes[bytes.length - 1]! ^= 1;
  assert.is((await page(bytes.toString('base64url'))).status, 404, 'changed MAC');
  const otherRecipient = Buffer.from(token, 'base64url');
  otherRecipient[23]! ^= 1;
  assert.is((await page(otherRecipient.toString('base64url'))).status, 404, 'another recipient id');
  const reissued = await call('POST', `/v1/collections/${c.id}/recipients/${c.recipients[0].id}/reissue-link`, {});
  assert.is(reissued.status, 200);
  assert.is((await page(token)).status, 404, 'the replaced version');
  assert.is((await page(reissued.body.link.token)).status, 200);
  assert.is(recipientLink(app.app, c.id, c.recipients[0].id, 2).token, reissued.body.link.token);
  assert.is((await page('not-a-token-at-all-0123456789')).status, 404);
});

test.run();
