import bunyan from 'bunyan';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Type from 'typebox';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildContext } from '../../service/infrastructure.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import { loadConfig } from '../../config/index.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { createHttpApp } from '../../http/app.ts';
import { ObjectIdSchema, route, type RouteTable } from '../../http/route.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';

const probe: RouteTable = {
  module: 'probe',
  routes: [
    route({
      method: 'post',
      path: '/probe/echo',
      summary: 'Echo a validated body',
      auth: false,
      body: Type.Object({ document: Type.String({ minLength: 1 }), type: Type.Union([Type.Literal('cpf'), Type.Literal('cnpj')]) }),
      handle: async ({ body }) => body,
    }),
    route({
      method: 'get',
      path: '/probe/items/:id',
      summary: 'Read by id',
      auth: false,
      params: Type.Object({ id: ObjectIdSchema() }),
      handle: async ({ params }) => ({ id: params.id }),
    }),
    route({
      method: 'get',
      path: '/probe/boom',
      summary: 'Unexpected failure',
      auth: false,
      handle: async () => {
        throw new Error('secret internals');
      },
    }),
    route({
      method: 'get',
      path: '/probe/conflict',
      summary: 'Domain refusal',
      auth: false,
      handle: async () => {
        throw new DomainError('conflict', 'Esta solicitação já está encerrada.');
      },
    }),
    route({ method: 'get', path: '/probe/private', summary: 'Needs a token', handle: async () => ({ ok: true }) }),
  ],
};

const OPS = 'ops-token-for-the-http-skeleton-test-0001';

interface Ctx {
  database: TestDatabase;
  store: PostgresEventStore;
  server: Server;
  url: string;
}
const test = suite<Ctx>('http skeleton');

test.before(async (ctx) => {
  ctx.database = await createTestDatabase();
  ctx.store = new PostgresEventStore(ctx.database.knex);
  const config = loadConfig({ DATABASE_URL: ctx.database.url, BODY_LIMIT: '2kb', JWT_SECRET: 'x'.repeat(40), LOG_LEVEL: 'fatal', OPS_TOKEN: OPS });
  const log = bunyan.createLogger({ name: 'test', level: 'fatal' });
  const app = buildContext(config, log, { db: ctx.database.knex, store: ctx.store });
  ctx.server = createServer(createHttpApp(app, [probe], ['never-ran']).callback());
  await new Promise<void>((resolve) => ctx.server.listen(0, '127.0.0.1', resolve));
  ctx.url = `http://127.0.0.1:${(ctx.server.address() as AddressInfo).port}`;
});

test.after(async (ctx) => {
  await new Promise((resolve) => ctx.server.close(resolve));
  await ctx.store.close();
  await ctx.database.drop();
});

async function call(url: string, method: string, body?: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method, body, headers: body ? { 'content-type': 'application/json', ...headers } : headers });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

test('validation failures answer 400 with the joined message', async ({ url }) => {
  const r = await call(`${url}/probe/echo`, 'POST', JSON.stringify({ type: 'rg', organizationId: 'x' }));
  assert.equal(r.body, { code: 400, message: 'document should not be empty,type must be one of the following values: cpf, cnpj' });
});

test('malformed JSON and oversized bodies answer 400 and 413 in the same body form', async ({ url }) => {
  const bad = await call(`${url}/probe/echo`, 'POST', '{"document": ');
  assert.equal(bad.body, { code: 400, message: 'O corpo da requisição não é um JSON válido.' });
  const big = await call(`${url}/probe/echo`, 'POST', JSON.stringify({ document: 'x'.repeat(5000), type: 'cpf' }));
  assert.equal(big.body, { code: 413, message: 'O corpo da requisição é grande demais.' });
});

test('an unexpected error is a bare 500 with no internals', async ({ url }) => {
  const r = await call(`${url}/probe/boom`, 'GET');
  assert.equal(r.body, { code: 500, message: 'Internal server error' });
});

test('domain refusals keep their text; malformed ids answer 400 before any lookup', async ({ url }) => {
  assert.equal((await call(`${url}/probe/conflict`, 'GET')).body, { code: 409, message: 'Esta solicitação já está encerrada.' });
  assert.equal((await call(`${url}/probe/items/123`, 'GET')).body, { code: 400, message: 'O identificador informado não é válido.' });
  assert.equal((await call(`${url}/probe/items/64b7f0c2a1b2c3d4e5f60718`, 'GET')).body, { id: '64b7f0c2a1b2c3d4e5f60718' });
});

test('unknown routes and missing tokens answer in the error form', async ({ url }) => {
  assert.equal((await call(`${url}/nowhere`, 'GET')).body, { code: 404, message: 'Rota não encontrada.' });
  assert.equal((await call(`${url}/probe/private`, 'GET')).body, { code: 401, message: 'Token de acesso inválido.' });
});

test('health, readiness and the request id', async ({ url }) => {
  const health = await call(`${url}/health`, 'GET', undefined, { 'x-request-id': 'abc-123' });
  assert.is(health.status, 200);
  assert.is(health.headers.get('x-request-id'), 'abc-123');
  const anyone = await call(`${url}/ready`, 'GET');
  assert.equal([anyone.status, anyone.body], [200, { status: 'ready', deployment: 'sandbox' }], "no checkpoint, lag or timeout without the operators' credential");
  for (const authorization of ['Bearer wrong-token-of-the-same-kind-000000', `Bearer ${OPS}x`, OPS]) {
    assert.equal((await call(`${url}/ready`, 'GET', undefined, { authorization })).body, { status: 'ready', deployment: 'sandbox' }, authorization);
  }
  const ready = await call(`${url}/ready`, 'GET', undefined, { authorization: `Bearer ${OPS}` });
  assert.is(ready.status, 200);
  assert.is(ready.body.status, 'ready');
  assert.is(ready.body.database, 'ok');
  assert.is(ready.body.eventStore, 'ok');
  // The operator also learns each provider and whether it is a sandbox.
  assert.is(ready.body.deployment, 'sandbox');
  assert.equal(ready.body.providers.creditSources, { provider: 'sandbox', sandbox: true });
  assert.ok(ready.body.sandboxParts.includes('credit sources (SOURCES=sandbox)'));
  assert.equal(ready.body.projections['never-ran'], { checkpoint: null, caughtUp: true, lagSeconds: 0, parked: 0, stalled: false }, 'an empty store leaves nothing to catch up');
});

test('the OpenAPI document comes from the same schemas', async ({ url }) => {
  const doc = (await call(`${url}/openapi.json`, 'GET')).body;
  assert.is(doc.openapi, '3.1.0');
  const echo = doc.paths['/probe/echo'].post;
  assert.equal(echo.requestBody.content['application/json'].schema.required, ['document', 'type']);
  assert.equal(echo.security, []);
  assert.is(doc.paths['/probe/items/{id}'].get.parameters[0].name, 'id');
});

test.run();
