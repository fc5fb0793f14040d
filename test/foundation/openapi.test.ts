import { getTotals } from '@redocly/openapi-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EVENT_GROUPS, LEGACY_TYPE_INFO, LEGACY_TYPES, PING_EVENT } from '../../domain/webhook/catalog.ts';
import { routeTables } from '../../http/modules.ts';
import { lintOpenApi } from '../../scripts/lint-openapi.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { checkReply } from '../support/contract.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';

const BASE_URL = 'https://credito.banco-exemplo.com.br';
const test = suite('/openapi.json: a contract a client can be generated from');
let app: TestApp;
let tenant: TestTenant;
let doc: any;

test.before(async () => {
  app = await startTestApp({ PUBLIC_BASE_URL: BASE_URL });
  tenant = await provisionTenant(app);
  const reply = await app.call('GET', '/openapi.json');
  assert.is(reply.status, 200);
  doc = reply.body;
});
test.after(async () => {
  await app?.stop();
});

const operations = () => Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));

test('OpenAPI 3.1, version 1.0, served from PUBLIC_BASE_URL, and Redocly finds nothing to say', async () => {
  assert.is(doc.openapi, '3.1.0');
  assert.is(doc.info.version, '1.0');
  assert.equal(doc.servers, [{ url: BASE_URL }]);
  const problems = await lintOpenApi(doc);
  const totals = getTotals(problems);
  assert.equal([totals.errors, totals.warnings], [0, 0], JSON.stringify(problems.map((p) => `${p.ruleId}: ${p.message}`)));
});

test('every route is one operation with a unique operationId and its security', () => {
  const all = operations();
  assert.is(
    all.length,
    routeTables.reduce((n, table) => n + table.routes.length, 0),
  );
  const ids = all.map(({ operation }) => operation.operationId);
  assert.is(new Set(ids).size, ids.length, 'operationIds are unique');
  assert.ok(ids.includes('report_postV2Report'));
  assert.equal(doc.components.securitySchemes.bearer, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: doc.components.securitySchemes.bearer.description });
  assert.equal([doc.components.securitySchemes.clientId.in, doc.components.securitySchemes.clientId.name], ['header', 'service-client-id']);
  assert.equal([doc.components.securitySchemes.clientSecret.in, doc.components.securitySchemes.clientSecret.name], ['header', 'service-client-secret']);
  const security = (method: string, path: string) => doc.paths[path][method].security;
  assert.equal(security('post', '/auth/authenticate'), [{ clientId: [], clientSecret: [] }]);
  assert.equal(security('get', '/report/download/{blobId}'), []);
  assert.equal(security('get', '/v2/report/{id}'), [{ bearer: [] }]);
});

test('every status has its schema: errors share the error body, creations list no 200', () => {
  for (const { path, method, operation } of operations()) {
    const statuses = Object.keys(operation.responses);
    assert.ok(
      statuses.some((s) => s.startsWith('2')),
      `${method} ${path} has a success`,
    );
    for (const status of statuses) {
      const response = operation.responses[status];
      if (Number(status) >= 400) assert.match(response.$ref, /^#\/components\/responses\//, `${method} ${path} ${status}`);
      else assert.ok(response.content, `${method} ${path} ${status} has content`);
    }
    for (const status of ['400', '431', '500']) if (status !== '400' || operation.parameters?.length || operation.requestBody) assert.ok(operation.responses[status], `${method} ${path} ${status}`);
    if (operation.security.length) for (const status of ['401', '429']) assert.ok(operation.responses[status], `${method} ${path} ${status}`);
  }
  const create = doc.paths['/v1/webhook/subscriptions'].post.responses;
  assert.ok(create['201']);
  assert.not.ok(create['200'], 'a 201 creation lists no 200');
  assert.ok(doc.paths['/v2/report/{id}'].get.responses['404']);
  assert.ok(doc.paths['/report/{id}/export'].post.responses['502']);
  assert.equal(Object.keys(doc.paths['/report/download/{blobId}'].get.responses['200'].content), ['application/pdf', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']);
  const report = doc.paths['/v2/report/{id}'].get.responses['200'].content['application/json'].schema;
  for (const field of ['yearMonthDay', 'reportProgress', 'sections', 'exportUrl', 'committeeResult', 'externalId']) assert.ok(report.properties[field], `Report.${field}`);
  assert.equal(doc.components.responses.Unauthorized.content['application/json'].example, { code: 401, message: 'Token de acesso inválido.' });
});

test('authenticated POSTs declare Idempotency-Key, and their replies Idempotent-Replayed', () => {
  for (const { path, method, operation } of operations()) {
    const declares = (operation.parameters ?? []).some((p: any) => p.$ref === '#/components/parameters/IdempotencyKey');
    assert.is(declares, method === 'post' && operation.security.some((s: any) => s.bearer), `${method} ${path}`);
  }
  assert.is(doc.components.parameters.IdempotencyKey.name, 'Idempotency-Key');
  assert.ok(doc.paths['/v2/report'].post.responses['200'].headers['Idempotent-Replayed']);
});

test('webhooks: one per catalog event, the named envelope and, for report events, the legacy one', () => {
  const events = [...EVENT_GROUPS.flatMap((g) => g.events), PING_EVENT];
  assert.equal(Object.keys(doc.webhooks).sort(), [...events].sort());
  const finished = doc.webhooks['report.finished'].post.requestBody.content['application/json'].schema;
  const [named, legacy] = finished.anyOf ?? finished.oneOf;
  assert.equal(named.required, ['id', 'event', 'occurredAt', 'organizationId', 'data']);
  assert.is(named.properties.event.const, 'report.finished');
  assert.is(legacy.properties.webhookType.const, 'REPORT_FINISHED');
  for (const type of LEGACY_TYPES) assert.ok(doc.webhooks[LEGACY_TYPE_INFO[type].publicName], type);
  const received = doc.webhooks['registry.document.received'].post.requestBody.content['application/json'].schema;
  assert.ok(received.properties.data.properties.sizeBytes);
  assert.ok(doc.webhooks['collection.created'].post.parameters.some((p: any) => p.name === 'X-Service-Signature'));
});

test('Cache-Control: no-store on tokens, sessions and reports, errors included', async () => {
  const authenticated = await app.call('POST', '/auth/authenticate', { headers: { 'service-client-id': tenant.clientId, 'service-client-secret': tenant.clientSecret } });
  const session = await app.call('GET', '/auth/session', { token: tenant.token });
  const report = await app.call('GET', '/v2/report/0123456789abcdef01234567', { token: tenant.token });
  assert.equal([authenticated.status, session.status, report.status], [200, 200, 404]);
  for (const reply of [authenticated, session, report]) assert.is(reply.headers.get('cache-control'), 'no-store');
});

test('the reply check of the test client refuses a status or a field the document does not list', () => {
  const path = '/v2/report/0123456789abcdef01234567';
  assert.throws(() => checkReply('GET', path, { status: 418, body: {}, contentType: 'application/json' }), /418, a status \/openapi\.json does not list/);
  assert.throws(() => checkReply('GET', '/auth/session', { status: 200, body: { id: 'x' }, contentType: 'application/json' }), /does not describe/);
  assert.throws(
    () =>
      checkReply('POST', '/v2/report', {
        status: 200,
        body: { ...doc.paths['/v2/report'].post.responses['200'].content['application/json'].schema.examples[0], surprise: 1 },
        contentType: 'application/json',
      }),
    /unevaluated|additional/,
  );
  checkReply('GET', path, { status: 404, body: { code: 404, message: 'Report not found' }, contentType: 'application/json' });
});

test.run();
