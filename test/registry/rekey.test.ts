import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { keyringFor } from '../../config/index.ts';
import { handleCommand } from '../../application/command-handler.ts';
import { registryLookupOf } from '../../application/registry/registry-lookups.ts';
import { registryDecider } from '../../domain/registry/decider.ts';
import { registryStream } from '../../domain/registry/events.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';
import { PNG_BYTES, uploadFile } from './support.ts';

interface Ctx {
  database: TestDatabase;
  dataDir: string;
  app: TestApp | null;
  tenant: TestTenant;
}
const test = suite<Ctx>('registry: scripts/rekey-registries.ts gives registries created under the unkeyed id their keyed id');

const KEPT_CPF = '52998224725';
const ERASED_CPF = '12345678909';
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

/** The command as an operator runs it: its own process on the service's database and secrets. */
async function rekey(ctx: Ctx): Promise<{ registries: number; rows: Record<string, number>; rebuilt: string[] }> {
  const env = { ...process.env, DATABASE_URL: ctx.database.url, DATA_DIR: ctx.dataDir, LOG_LEVEL: 'warn' };
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/rekey-registries.ts', '--batch=7'], { env });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

/** Every row of the event store and of the tables outside the projections, as text. */
async function storeText(db: TestDatabase['knex']): Promise<string> {
  const tables = ['events', 'streams', 'registry_lookups', 'registry_id_aliases', 'webhook_deliveries', 'webhook_delivery_bodies'];
  const parts = await Promise.all(tables.map(async (table) => JSON.stringify(await db(table).select().orderByRaw('1, 2'))));
  return parts.join('\n');
}

/** As the code before keyed ids wrote a registry: its stream named after the unkeyed hash. */
async function legacyRegistry(ctx: Ctx, cpf: string, name: string): Promise<string> {
  const organizationId = ctx.tenant.organizationId;
  const id = unkeyedId(organizationId, cpf);
  await handleCommand(ctx.app!.app.store, registryStream(id), registryDecider, {
    type: 'CreateRegistry',
    ifAbsent: false,
    organizationId,
    registryId: id,
    document: cpf,
    entityType: 'PERSON',
    name,
    contacts: [],
    basicData: {},
    actorType: 'USER',
    actorId: ctx.tenant.userId,
    at: new Date().toISOString(),
  });
  await eventually(async () => (await ctx.app!.call('GET', `/v1/registry/${id}`, { token: ctx.tenant.token })).status === 200, { what: 'legacy registry projected' });
  return id;
}

test('old ids leave the store, the document finds the keyed id, the old id still resolves, an erased one is gone, a second run changes nothing', async (ctx) => {
  const organizationId = ctx.tenant.organizationId;
  // Webhook bodies are kept after delivery (not a projection's table): they name the old id too.
  const subscribed = await ctx.app!.call('POST', '/v1/webhook/subscriptions', { token: ctx.tenant.token, body: { url: 'http://127.0.0.1:9/hook', events: ['registry.document.received'] } });
  assert.is(subscribed.status, 201, JSON.stringify(subscribed.body));
  const keptOld = await legacyRegistry(ctx, KEPT_CPF, 'Ana Antiga');
  const uploaded = await uploadFile(ctx.app!, ctx.tenant.token, `/v1/registry/${keptOld}/documents`, { bytes: PNG_BYTES, fileName: 'rg.png', type: 'image/png' });
  assert.is(uploaded.status, 201, JSON.stringify(uploaded.body));
  const documentId = uploaded.body.id as string;
  const erasedOld = await legacyRegistry(ctx, ERASED_CPF, 'Bruno Apagado');
  const erased = await ctx.app!.call('POST', '/v1/personal-data/erase', { token: ctx.tenant.token, body: { document: ERASED_CPF, type: 'CPF' } });
  assert.is(erased.status, 200, JSON.stringify(erased.body));
  await eventually(async () => (await ctx.database.knex('registry_registries').where({ id: erasedOld }).first())?.document === '***', { what: 'registry row erased' });
  await eventually(async () => (await ctx.app!.call('GET', `/v1/registry/${keptOld}/documents/${documentId}`, { token: ctx.tenant.token })).body?.status !== 'RECEIVED', {
    what: 'document analysed',
  });
  const webhookBodies = async () => JSON.stringify([await ctx.database.knex('webhook_deliveries').select('body'), await ctx.database.knex('webhook_delivery_bodies').select('body')]);
  await eventually(async () => (await webhookBodies()).includes(keptOld), { what: 'a kept webhook body names the old id' });
  assert.ok((await storeText(ctx.database.knex)).includes(keptOld), 'before: the store names the old id');
  const keptNew = registryLookupOf(keyringFor(ctx.app!.app.config, 'pepper'), organizationId, KEPT_CPF).slice(0, 24);
  await ctx.app!.stop();
  ctx.app = null;

  const first = await rekey(ctx);
  assert.is(first.registries, 2, JSON.stringify(first));
  assert.ok(first.rebuilt.includes('registry'), JSON.stringify(first));
  const after = await storeText(ctx.database.knex);
  assert.not.ok(after.includes(keptOld), 'no event, stream, lookup or alias names the old id');
  assert.not.ok(after.includes(erasedOld), "the erased registry's old id is nowhere in the store");
  assert.ok((await webhookBodies()).includes(keptNew), 'the kept body names the new id');
  const readTables = JSON.stringify(await ctx.database.knex('registry_registries').select()) + JSON.stringify(await ctx.database.knex('registry_documents').select());
  assert.not.ok(readTables.includes(keptOld) || readTables.includes(erasedOld), 'the read tables were rebuilt under the new ids');

  ctx.app = await startTestApp({}, { database: ctx.database, dataDir: ctx.dataDir });
  const again = await ctx.app.call('POST', '/v1/registry', { token: ctx.tenant.token, body: { document: KEPT_CPF, name: 'Ana Antiga', entityType: 'PERSON' } });
  assert.is(again.status, 409, JSON.stringify(again.body));
  assert.is(again.body.registryId, keptNew, 'the document finds its registry under the keyed id');
  const byNew = await ctx.app.call('GET', `/v1/registry/${keptNew}`, { token: ctx.tenant.token });
  assert.is(byNew.status, 200, JSON.stringify(byNew.body));
  assert.is(byNew.body.name, 'Ana Antiga');
  const byOld = await ctx.app.call('GET', `/v1/registry/${keptOld}`, { token: ctx.tenant.token });
  assert.is(byOld.status, 200, JSON.stringify(byOld.body));
  assert.is(byOld.body.id, keptNew, "an integrator's old id resolves to the registry, named by its new id");
  const documents = await ctx.app.call('GET', `/v1/registry/${keptOld}/documents`, { token: ctx.tenant.token });
  assert.is(documents.status, 200, JSON.stringify(documents.body));
  assert.equal(
    documents.body.map((d: { id: string }) => d.id),
    [documentId],
  );
  const document = await ctx.app.call('GET', `/v1/registry/${keptOld}/documents/${documentId}`, { token: ctx.tenant.token });
  assert.is(document.status, 200, JSON.stringify(document.body));
  assert.is(document.body.registryId, keptNew);

  const erasedNow = await ctx.app.call('GET', `/v1/registry/${erasedOld}`, { token: ctx.tenant.token });
  assert.is(erasedNow.status, 200, JSON.stringify(erasedNow.body));
  assert.is.not(erasedNow.body.id, erasedOld);
  assert.not.ok(JSON.stringify(erasedNow.body).includes(ERASED_CPF));

  await ctx.app.stop();
  ctx.app = null;
  const before = await storeText(ctx.database.knex);
  const second = await rekey(ctx);
  assert.is(second.registries, 0, JSON.stringify(second));
  assert.equal(second.rebuilt, []);
  assert.is(await storeText(ctx.database.knex), before, 'a second run changes nothing');
});

test.run();
