import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Type from 'typebox';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MODULES, PERMISSIONS, type Module, type Permission } from '../../domain/identity/access.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { createHttpApp } from '../../http/app.ts';
import { Gates, type Gate } from '../../http/gates.ts';
import { routeTables } from '../../http/modules.ts';
import { needsBearer, ObjectIdSchema, route, type RouteSpec, type RouteTable } from '../../http/route.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant } from '../support/identity.ts';
import { PATIENT_READ_YOUR_WRITES } from './patient.ts';

/**
 * Every route of every table in http/modules.ts, checked against what its own declaration says:
 * 401 without a token, the gate's refusal for an organization without its modules and for a
 * credential without its permissions, 400 for a malformed id in the path. A module that adds a
 * route is covered here without writing anything.
 */
const OBJECT_ID_PATTERN = '^[0-9a-fA-F]{24}$';
const VALID_ID = '0123456789abcdef01234567';
const DEFAULT_DENIAL = { status: 403, message: Messages.forbidden };

type ParamSchema = { type?: string; pattern?: string; errorMessage?: string; minimum?: number; enum?: unknown[]; anyOf?: Array<{ const?: unknown }> };
const paramSchemas = (spec: RouteSpec) => (spec.params as { properties?: Record<string, ParamSchema> } | undefined)?.properties ?? {};

/** A value the param's schema accepts, so that only the param under test is wrong. */
function sampleOf(schema: ParamSchema | undefined): string {
  if (schema?.pattern === OBJECT_ID_PATTERN) return VALID_ID;
  if (schema?.type === 'integer' || schema?.type === 'number') return String(schema.minimum ?? 1);
  const choices = schema?.enum ?? schema?.anyOf?.map((option) => option.const);
  return choices?.length ? String(choices[0]) : 'x';
}

function pathOf(spec: RouteSpec, malformed?: string): string {
  return spec.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => (name === malformed ? 'not-an-id' : sampleOf(paramSchemas(spec)[name])));
}

const without = <T extends string>(all: readonly T[], some: readonly T[] = []) => all.filter((x) => !some.includes(x));

type Call = (spec: RouteSpec, path: string, token?: string) => Promise<{ status: number; body: any }>;

interface Ctx {
  app: TestApp;
  tokens: Map<string, Promise<string>>;
  probeServer: Server;
  probeUrl: string;
}

/** One tenant per distinct set of modules and permissions, made on first use. */
function tokenFor(ctx: Ctx, modules: readonly Module[], permissions: readonly Permission[]): Promise<string> {
  const key = `${[...modules].sort().join(',')}|${[...permissions].sort().join(',')}`;
  if (!ctx.tokens.has(key))
    ctx.tokens.set(
      key,
      provisionTenant(ctx.app, { modules, permissions }).then((t) => t.token),
    );
  return ctx.tokens.get(key)!;
}

function expectRefusal(reply: { status: number; body: any }, expected: { status: number; message: string }, what: string) {
  assert.is(reply.status, expected.status, `${what}: ${JSON.stringify(reply.body)}`);
  assert.equal(reply.body, { code: expected.status, message: expected.message }, what);
}

/** The callers a route's checks need: provisioned all at once before checking, to keep the suite fast. */
function callersOf(spec: RouteSpec): Array<[readonly Module[], readonly Permission[]]> {
  const gate: Gate = spec.gate ?? {};
  return [
    [MODULES, PERMISSIONS],
    ...(gate.modules?.length ? [[without(MODULES, gate.modules), PERMISSIONS] as [Module[], readonly Permission[]]] : []),
    ...(gate.permissions?.length ? [[MODULES, without(PERMISSIONS, gate.permissions)] as [readonly Module[], Permission[]]] : []),
  ];
}

async function prepare(ctx: Ctx, specs: readonly RouteSpec[]): Promise<void> {
  await Promise.all(specs.flatMap(callersOf).map(([modules, permissions]) => tokenFor(ctx, modules, permissions)));
}

async function checkRoute(ctx: Ctx, call: Call, spec: RouteSpec): Promise<void> {
  if (!needsBearer(spec)) return;
  const name = `${spec.method.toUpperCase()} ${spec.path}`;
  const gate: Gate = spec.gate ?? {};
  expectRefusal(await call(spec, pathOf(spec)), { status: 401, message: Messages.invalidToken }, `${name} without a token`);
  if (gate.modules?.length) {
    const token = await tokenFor(ctx, without(MODULES, gate.modules), PERMISSIONS);
    expectRefusal(await call(spec, pathOf(spec), token), gate.moduleDenied ?? DEFAULT_DENIAL, `${name} without modules ${gate.modules.join('/')}`);
  }
  if (gate.permissions?.length) {
    const token = await tokenFor(ctx, MODULES, without(PERMISSIONS, gate.permissions));
    expectRefusal(await call(spec, pathOf(spec), token), gate.permissionDenied ?? DEFAULT_DENIAL, `${name} without permissions ${gate.permissions.join('/')}`);
  }
  const full = await tokenFor(ctx, MODULES, PERMISSIONS);
  for (const [param, schema] of Object.entries(paramSchemas(spec))) {
    if (schema.pattern !== OBJECT_ID_PATTERN) continue;
    const reply = await call(spec, pathOf(spec, param), full);
    assert.is(reply.status, 400, `${name} with a malformed ${param}: ${JSON.stringify(reply.body)}`);
    assert.is(reply.body.code, 400);
    if (schema.errorMessage) assert.is(reply.body.message, schema.errorMessage, `${name} malformed ${param}`);
  }
}

function caller(baseUrl: () => string): Call {
  return async (spec, path, token) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    // Any body will do: gates and path checks come before body validation.
    const body = spec.method === 'get' || spec.method === 'delete' ? undefined : '{}';
    const response = await fetch(baseUrl() + path, { method: spec.method.toUpperCase(), headers, body });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
}

/** One probe route per entry of the Gates table, so every gate is proven even before its routes exist. */
const probes: RouteTable = {
  module: 'probe',
  routes: Object.entries(Gates).map(([name, gate]) =>
    route({
      method: 'post',
      path: `/probe/${name}/:id`,
      summary: name,
      gate,
      params: Type.Object({ id: ObjectIdSchema() }),
      handle: async () => ({ passed: name }),
    }),
  ),
};

/** What a handler receives when a body names an organization or a user. */
const echo: RouteTable = {
  module: 'probe',
  routes: [
    route({
      method: 'post',
      path: '/probe-echo',
      summary: 'echo',
      body: Type.Object({ note: Type.String(), organizationId: Type.Optional(Type.String()), userId: Type.Optional(Type.String()) }),
      handle: async ({ body, principal }) => ({ body, organizationId: principal.organizationId }),
    }),
  ],
};

const test = suite<Ctx>('identity: gate matrix over every route');

test.before(async (ctx) => {
  ctx.app = await startTestApp({ ...PATIENT_READ_YOUR_WRITES, RATE_LIMIT_PER_CREDENTIAL: '100000', RATE_LIMIT_PER_ORGANIZATION: '100000' });
  ctx.tokens = new Map();
  ctx.probeServer = createServer(createHttpApp(ctx.app.app, [probes, echo], []).callback());
  await new Promise<void>((resolve) => ctx.probeServer.listen(0, '127.0.0.1', resolve));
  ctx.probeUrl = `http://127.0.0.1:${(ctx.probeServer.address() as AddressInfo).port}`;
});
test.after(async (ctx) => {
  await new Promise((resolve) => ctx.probeServer.close(resolve));
  await ctx.app.stop();
});

test('every route of every module states its gate and keeps it', async (ctx) => {
  const call = caller(() => ctx.app.url);
  const routes = routeTables.flatMap((table) => table.routes);
  assert.ok(routes.length > 0);
  await prepare(ctx, routes);
  for (const spec of routes) await checkRoute(ctx, call, spec);
});

test('every entry of the Gates table refuses as declared and lets the right caller in', async (ctx) => {
  const call = caller(() => ctx.probeUrl);
  await prepare(ctx, probes.routes);
  for (const spec of probes.routes) {
    await checkRoute(ctx, call, spec);
    const reply = await call(spec, pathOf(spec), await tokenFor(ctx, MODULES, PERMISSIONS));
    assert.equal(reply, { status: 200, body: { passed: spec.summary } }, spec.path);
  }
});

test('a gate needs only one of its modules and one of its permissions', async (ctx) => {
  const call = caller(() => ctx.probeUrl);
  const narrow = probes.routes.filter((spec) => spec.gate?.modules?.length && spec.gate.permissions?.length);
  const tokens = await Promise.all(narrow.map((spec) => tokenFor(ctx, [spec.gate!.modules!.at(-1)!], [spec.gate!.permissions!.at(-1)!])));
  for (const [i, spec] of narrow.entries()) assert.is((await call(spec, pathOf(spec), tokens[i])).status, 200, spec.path);
});

test('organization and user in a body are discarded: they come from the token', async (ctx) => {
  const tenant = await provisionTenant(ctx.app, { name: 'echo' });
  const response = await fetch(`${ctx.probeUrl}/probe-echo`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ note: 'n', organizationId: VALID_ID, userId: VALID_ID }),
  });
  assert.equal(await response.json(), { body: { note: 'n' }, organizationId: tenant.organizationId });
});

test.run();
