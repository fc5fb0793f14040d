import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { IdempotencyMessages } from '../../http/idempotency.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';

const test = suite('Idempotency-Key on authenticated POSTs');
let app: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let policyId: string;

test.before(async () => {
  app = await startTestApp();
  [tenant, other] = await Promise.all([provisionTenant(app), provisionTenant(app, { name: 'Other organization' })]);
  for (const owner of [tenant, other]) {
    const reply = await app.call('POST', '/credit-policy/policy', { token: owner.token, body: DEMO_CPF_POLICY });
    assert.is(reply.status, 200, JSON.stringify(reply.body));
    if (owner === tenant) policyId = reply.body.id;
  }
});
test.after(async () => {
  await app?.stop();
});

const createReport = (key: string, body: Record<string, unknown>, token = tenant.token) => app.call('POST', '/v2/report', { token, body, headers: { 'Idempotency-Key': key } });
const requestedReports = async (organizationId: string) =>
  Number((await app.database.knex('events').where({ event_type: 'ReportRequested' }).whereRaw(`data->>'organizationId' = ?`, [organizationId]).count({ n: '*' }))[0]!.n);

test('POST /v2/report twice with one key: one report, the same reply, marked as replayed', async () => {
  const before = await requestedReports(tenant.organizationId);
  const body = { document: '123.456.789-09', type: 'cpf', policyId, externalId: 'pedido-idem-1' };
  const first = await createReport('order-1', body);
  assert.is(first.status, 200, JSON.stringify(first.body));
  assert.is(first.headers.get('idempotent-replayed'), null);
  // The same request with its fields in another order is the same request.
  const second = await createReport('order-1', { externalId: 'pedido-idem-1', policyId, type: 'cpf', document: '123.456.789-09' });
  assert.is(second.status, 200);
  assert.equal(second.body, first.body);
  assert.is(second.headers.get('idempotent-replayed'), 'true');
  assert.is(await requestedReports(tenant.organizationId), before + 1);
  const read = await app.call('GET', `/v2/report/${first.body.id}`, { token: tenant.token });
  assert.is(read.status, 200);
});

test('the same key with another body answers 422 and does nothing', async () => {
  const before = await requestedReports(tenant.organizationId);
  await createReport('order-2', { document: '123.456.789-09', type: 'cpf', policyId });
  const reply = await createReport('order-2', { document: '100.000.001-08', type: 'cpf', policyId });
  assert.equal([reply.status, reply.body], [422, { code: 422, message: IdempotencyMessages.otherRequest }]);
  assert.is(await requestedReports(tenant.organizationId), before + 1);
});

test('keys belong to one client credential: another client with the same key gets its own effect', async () => {
  const mine = await createReport('shared-key', { document: '123.456.789-09', type: 'cpf', policyId });
  const otherPolicy = (await app.call('GET', '/credit-policy/policy', { token: other.token })).body[0].id;
  const theirs = await createReport('shared-key', { document: '123.456.789-09', type: 'cpf', policyId: otherPolicy }, other.token);
  assert.is(mine.status, 200);
  assert.is(theirs.status, 200);
  assert.is.not(theirs.body.id, mine.body.id);
});

test('a refused request keeps nothing: the key can be used again', async () => {
  const missing = { document: '123.456.789-09', type: 'cpf', policyId: '0123456789abcdef01234567' };
  const refused = await createReport('order-3', missing);
  assert.equal([refused.status, refused.body.message], [404, Messages.policyNotFound]);
  const accepted = await createReport('order-3', { document: '123.456.789-09', type: 'cpf', policyId });
  assert.is(accepted.status, 200, JSON.stringify(accepted.body));
});

test('a malformed key answers 400', async () => {
  for (const key of ['x'.repeat(256), 'with space']) {
    const reply = await app.call('POST', '/v2/report', { token: tenant.token, body: { document: '123.456.789-09', type: 'cpf', policyId }, headers: { 'Idempotency-Key': key } });
    assert.equal([reply.status, reply.body], [400, { code: 400, message: IdempotencyMessages.invalidKey }], key);
  }
});

test('a duplicate while the first is in flight answers 409; afterwards the first reply is replayed', async () => {
  // POST /webhook sends a test POST to the url before answering: this receiver holds it.
  const held: ServerResponse[] = [];
  let arrived!: () => void;
  const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
  const receiver: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      held.push(res);
      arrived();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    const subscribe = () => app.call('POST', '/webhook', { token: tenant.token, body: { type: 'REPORT_STATUS', url }, headers: { 'Idempotency-Key': 'hook-1' } });
    const first = subscribe();
    await firstArrived;
    const duplicate = await subscribe();
    assert.equal([duplicate.status, duplicate.body], [409, { code: 409, message: IdempotencyMessages.inFlight }]);
    for (const res of held) res.writeHead(200).end();
    const done = await first;
    assert.is(done.status, 200, JSON.stringify(done.body));
    const again = await subscribe();
    assert.equal([again.status, again.body, again.headers.get('idempotent-replayed')], [200, done.body, 'true']);
    assert.is(held.length, 1, 'one test POST: the subscription was made once');
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
});

test('replies are kept 24 hours: an expired key is a new key', async () => {
  const before = await requestedReports(tenant.organizationId);
  await createReport('order-4', { document: '123.456.789-09', type: 'cpf', policyId });
  await app.database
    .knex('http_idempotency_keys')
    .where({ credential_id: tenant.credentialId })
    .update({ expires_at: new Date(Date.now() - 1000) });
  const reply = await createReport('order-4', { document: '100.000.001-08', type: 'cpf', policyId });
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.is(await requestedReports(tenant.organizationId), before + 2);
  // The expired rows of everyone are purged by the requests that create keys.
  const expired = await app.database.knex('http_idempotency_keys').where('expires_at', '<=', new Date()).count({ n: '*' });
  assert.is(Number(expired[0]!.n), 0);
});

test('the stored reply is sealed: the secret of a named subscription is not in the table', async () => {
  const reply = await app.call('POST', '/v1/webhook/subscriptions', {
    token: tenant.token,
    body: { url: 'http://127.0.0.1:9/named', events: ['report.finished'] },
    headers: { 'Idempotency-Key': 'named-1' },
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  const rows = await app.database.knex('http_idempotency_keys').select('key_hash', 'reply');
  for (const row of rows) {
    assert.is.not(row.key_hash, 'named-1');
    assert.not.ok(row.reply?.toString('latin1').includes(reply.body.secret));
  }
  const again = await app.call('POST', '/v1/webhook/subscriptions', {
    token: tenant.token,
    body: { url: 'http://127.0.0.1:9/named', events: ['report.finished'] },
    headers: { 'Idempotency-Key': 'named-1' },
  });
  assert.equal([again.status, again.body], [201, reply.body]);
});

test.run();
