import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { handleCommand } from '../../application/command-handler.ts';
import { registryDecider } from '../../domain/registry/decider.ts';
import { registryStream } from '../../domain/registry/events.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';

interface Ctx {
  database: TestDatabase;
  dataDir: string;
  app: TestApp;
  tenant: TestTenant;
}
const test = suite<Ctx>('registry: ids derived from a document with the pepper, older unkeyed ids still found');

const FIRST_CPF = '12345678909';
const SECOND_CPF = '10000000280';
const LEGACY_CPF = '52998224725';
/** How ids were derived before: anyone could recompute it from a CPF, so from every CPF. */
const unkeyedId = (organizationId: string, cpf: string) => createHash('sha256').update(`registry:${organizationId}:${cpf}`).digest('hex').slice(0, 24);

test.before(async (ctx) => {
  ctx.database = await createTestDatabase({ migrate: false });
  ctx.dataDir = mkdtempSync(join(tmpdir(), 'credit-test-data-'));
  ctx.app = await startTestApp({}, { database: ctx.database, dataDir: ctx.dataDir });
  ctx.tenant = await provisionTenant(ctx.app);
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  await ctx.database?.drop();
  rmSync(ctx.dataDir, { recursive: true, force: true });
});

const create = (ctx: Ctx, cpf: string, name: string) => ctx.app.call('POST', '/v1/registry', { token: ctx.tenant.token, body: { document: cpf, name, entityType: 'PERSON' } });

test('two registries get ids that are not the unkeyed hash of their CPF; the same CPF finds the same registry', async (ctx) => {
  const ids: string[] = [];
  for (const [cpf, name] of [
    [FIRST_CPF, 'Maria Souza'],
    [SECOND_CPF, 'João Lima'],
  ] as const) {
    const created = await create(ctx, cpf, name);
    assert.is(created.status, 201, JSON.stringify(created.body));
    assert.match(created.body.id, /^[0-9a-f]{24}$/);
    assert.is.not(created.body.id, unkeyedId(ctx.tenant.organizationId, cpf));
    const again = await create(ctx, cpf.replace(/^(\d{3})(\d{3})(\d{3})/, '$1.$2.$3-'), name);
    assert.is(again.status, 409, JSON.stringify(again.body));
    assert.is(again.body.registryId, created.body.id, 'the same document, masked or not, gives the same registry');
    ids.push(created.body.id);
  }
  assert.is.not(ids[0], ids[1]);
});

test('a registry created with the old unkeyed id is still found by its document after the service starts again', async (ctx) => {
  const organizationId = ctx.tenant.organizationId;
  const legacyId = unkeyedId(organizationId, LEGACY_CPF);
  // As the code before this change wrote it: the stream named after the unkeyed hash.
  await handleCommand(ctx.app.app.store, registryStream(legacyId), registryDecider, {
    type: 'CreateRegistry',
    ifAbsent: false,
    organizationId,
    registryId: legacyId,
    document: LEGACY_CPF,
    entityType: 'PERSON',
    name: 'Ana Antiga',
    contacts: [],
    basicData: {},
    actorType: 'USER',
    actorId: ctx.tenant.userId,
    at: new Date().toISOString(),
  });
  await eventually(async () => (await ctx.app.call('GET', `/v1/registry/${legacyId}`, { token: ctx.tenant.token })).status === 200, { what: 'legacy registry projected' });
  await ctx.app.stop();
  ctx.app = await startTestApp({}, { database: ctx.database, dataDir: ctx.dataDir });

  const again = await create(ctx, LEGACY_CPF, 'Ana Antiga');
  assert.is(again.status, 409, JSON.stringify(again.body));
  assert.is(again.body.registryId, legacyId, 'the old registry, not a second one under a keyed id');
  const lookups = await ctx.database.knex('registry_lookups').where({ registry_id: legacyId });
  assert.is(lookups.length, 1);
  assert.is.not(lookups[0].lookup, createHash('sha256').update(`registry:${organizationId}:${LEGACY_CPF}`).digest('hex'), 'the lookup is keyed too');
});

test('after the person is erased, nothing left in the read tables gives the CPF back from the registry id', async (ctx) => {
  const created = await create(ctx, FIRST_CPF, 'Maria Souza');
  const registryId = created.body.registryId as string;
  const erased = await ctx.app.call('POST', '/v1/personal-data/erase', { token: ctx.tenant.token, body: { document: FIRST_CPF, type: 'CPF' } });
  assert.is(erased.status, 200, JSON.stringify(erased.body));
  await eventually(async () => (await ctx.database.knex('registry_registries').where({ id: registryId }).first())?.document === '***', { what: 'registry row erased' });
  const row = await ctx.database.knex('registry_registries').where({ id: registryId }).first();
  assert.not.ok(JSON.stringify(row).includes(FIRST_CPF), 'no copy of the CPF in the row');
  assert.is.not(registryId, unkeyedId(ctx.tenant.organizationId, FIRST_CPF), 'trying every CPF against the id finds nothing without the pepper');
  const lookup = await ctx.database.knex('registry_lookups').where({ registry_id: registryId }).first();
  assert.not.ok(lookup && JSON.stringify(lookup).includes(FIRST_CPF));
});

test.run();
