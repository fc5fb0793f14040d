import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PublicFormMessages as M } from '../../domain/public-form/messages.ts';
import { brasiliaDay } from '../../domain/public-form/form.ts';
import { findRecipientByToken } from '../../projections/collection/queries.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { newCnpj } from '../collection/support.ts';

const test = suite('public form through HTTP');
let app: TestApp;
let tenant: TestTenant;
let templateId: string;
// Tiny limits so the test reaches them: two submissions per address and hour, four collections a day.
const PER_ADDRESS = 2;
const CEILING = 4;

const content = (slug: string, publicForm: boolean) => ({
  slug,
  name: 'Abertura de conta',
  description: 'Documentos para abrir a conta.',
  items: [
    { key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL', appliesTo: 'PJ' },
    { key: 'identidade', kind: 'DOCUMENT', title: 'Documento de identidade', expectedType: 'DOC_IDENTIDADE', appliesTo: 'PF' },
  ],
  notificationChannel: 'NONE',
  publicForm,
});

test.before(async () => {
  app = await startTestApp({
    // The tests play several clients from one machine: each writes its address as one proxy would.
    TRUST_PROXY: '1',
    PUBLIC_FORM_DAILY_CEILING: String(CEILING),
    PUBLIC_FORM_PER_ADDRESS_PER_HOUR: String(PER_ADDRESS),
    RATE_LIMIT_PER_CREDENTIAL: '100000',
    RATE_LIMIT_PER_ORGANIZATION: '100000',
  });
  tenant = await provisionTenant(app, { name: 'Banco Exemplo' });
  const created = await app.call('POST', '/v1/collection-templates', { token: tenant.token, body: content('conta', true) });
  assert.is(created.status, 201, JSON.stringify(created.body));
  templateId = created.body.id;
  assert.is(created.body.publicFormUrl, `${app.url}/formulario/${templateId}`);
});
test.after(async () => {
  await app?.stop();
});

const page = (path: string) => fetch(`${app.url}${path}`, { headers: { accept: 'text/html' } });

/** The form as a browser posts it, from one client address (the service trusts X-Forwarded-For from its proxy). */
function submit(fields: Record<string, string>, address: string, id = templateId) {
  return fetch(`${app.url}/formulario/${id}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
    body: new URLSearchParams(fields).toString(),
  });
}

const person = (overrides: Record<string, string> = {}) => ({ nome: 'Maria da Silva', documento: '123.456.789-09', email: 'Maria@Example.com', telefone: '(11) 99999-8888', ...overrides });

const dailyCount = async () =>
  (
    await app.app
      .db('public_form_daily')
      .where({ organization_id: tenant.organizationId, day: brasiliaDay(new Date()) })
      .first('count')
  )?.count ?? 0;

test('the page asks for name, CPF or CNPJ, e-mail and phone, in Portuguese', async () => {
  const reply = await page(`/formulario/${templateId}`);
  assert.is(reply.status, 200);
  const html = await reply.text();
  for (const name of ['nome', 'documento', 'email', 'telefone']) assert.match(html, `name="${name}"`);
  assert.match(html, 'Banco Exemplo pede os dados abaixo');
  assert.match(html, '<li>Contrato social</li>');
  assert.match(html, 'lang="pt-BR"');
});

test('invalid fields: the page again with each error, and nothing opened', async () => {
  const reply = await submit(person({ nome: 'M', documento: '123.456.789-00', email: 'maria@', telefone: '123' }), '198.51.100.1');
  assert.is(reply.status, 400);
  const html = await reply.text();
  for (const [field, message] of [
    ['nome', M.nameRequired],
    ['documento', M.documentInvalid],
    ['email', M.emailInvalid],
    ['telefone', M.phoneInvalid],
  ]) {
    assert.match(html, `data-field="${field}">${message}`);
  }
  assert.match(html, 'value="maria@"', 'what was typed stays in the form');
  assert.is(await dailyCount(), 0);
  const json = await fetch(`${app.url}/formulario/${templateId}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'nome=Maria' });
  assert.is(json.status, 400);
  assert.is((await json.json()).code, 400);
});

test('a valid submission opens a collection created by SYSTEM and redirects to the recipient page', async () => {
  const reply = await submit(person(), '198.51.100.2');
  assert.is(reply.status, 303, await reply.text());
  const location = reply.headers.get('location')!;
  assert.match(location, /^\/c\/[^/]+$/);
  const link = (await findRecipientByToken(app.app.db, decodeURIComponent(location.slice(3))))!;
  const events = await app.app.store.readStream(`collection-${link.collectionId}`);
  assert.equal(
    events.map((e) => e.type),
    ['CollectionCreated', 'CollectionSent'],
    'the same events as any collection, none of the form',
  );
  const created = events[0]!.data as any;
  assert.equal([created.actorType, created.actorId, created.payload.template, created.payload.items, created.payload.recipients], ['SYSTEM', null, 'conta', 1, 1]);
  assert.equal(created.definition.subject, { name: 'Maria da Silva', document: '12345678909', entityType: 'PERSON' });
  assert.equal(created.definition.recipients[0].email, 'maria@example.com');
  assert.equal(created.definition.recipients[0].phone, '+5511999998888');
  assert.equal(
    created.definition.items.map((i: any) => i.key),
    ['identidade'],
    'the PF items only',
  );
  const recipientPage = await page(location);
  assert.is(recipientPage.status, 200);
  assert.match(await recipientPage.text(), 'Olá, Maria da Silva');
  assert.is(await dailyCount(), 1);
});

test('per client address: a 429 in Portuguese past the hourly limit, other addresses unaffected', async () => {
  for (let i = 0; i < PER_ADDRESS; i++) assert.is((await submit(person({ documento: newCnpj(), nome: `Empresa ${i}` }), '203.0.113.9')).status, 303);
  const refused = await submit(person({ documento: newCnpj() }), '203.0.113.9');
  assert.is(refused.status, 429);
  assert.ok(Number(refused.headers.get('retry-after')) > 0);
  assert.match(await refused.text(), M.tooManyFromAddress);
  assert.is(await dailyCount(), 1 + PER_ADDRESS, 'a refused submission takes nothing from the day');
  // The counter keeps the address keyed: a plain hash of an address is reversed by trying them all.
  const kept: string[] = (await app.app.db('public_form_addresses').where({ organization_id: tenant.organizationId }).select('address_hash')).map((r: { address_hash: string }) => r.address_hash);
  assert.ok(kept.length > 0);
  const unkeyed = [`${tenant.organizationId}:203.0.113.9`, '203.0.113.9'].map((text) => createHash('sha256').update(text).digest('hex'));
  for (const hash of unkeyed) assert.not.ok(kept.includes(hash), 'an unkeyed hash of the address');
});

test('the daily ceiling switches the link off for the rest of the day, without any event', async () => {
  while ((await dailyCount()) < CEILING) assert.is((await submit(person({ documento: newCnpj() }), `192.0.2.${await dailyCount()}`)).status, 303);
  const head = await app.app.store.headPosition();
  const off = await page(`/formulario/${templateId}`);
  assert.is(off.status, 503);
  assert.match(await off.text(), M.ceilingReached);
  const retryAfter = Number(off.headers.get('retry-after'));
  assert.ok(retryAfter > 0 && retryAfter <= 86_400);
  const refused = await submit(person({ documento: newCnpj() }), '192.0.2.200');
  assert.is(refused.status, 503);
  assert.is(await dailyCount(), CEILING);
  assert.equal(await app.app.store.headPosition(), head, 'switching off emitted nothing');
});

test('a template switched off, without the public form, or unknown: 404', async () => {
  const other = await app.call('POST', '/v1/collection-templates', { token: tenant.token, body: content('privado', false) });
  assert.is(other.body.publicFormUrl, null);
  assert.is((await page(`/formulario/${other.body.id}`)).status, 404);
  assert.is((await page(`/formulario/${'f'.repeat(24)}`)).status, 404);
  const switched = await app.call('PATCH', '/v1/collection-templates/conta', { token: tenant.token, body: { enabled: false } });
  assert.is(switched.status, 200, JSON.stringify(switched.body));
  const gone = await page(`/formulario/${templateId}`);
  assert.is(gone.status, 404);
  assert.match(await gone.text(), M.notFound);
  assert.is((await submit(person(), '198.51.100.77')).status, 404);
});

test.run();
