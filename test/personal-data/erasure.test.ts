import { spawn } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { rebuildProjection } from '../../platform/projections/rebuild.ts';
import { reportProjection } from '../../projections/report/projection.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { readUntil } from '../support/wait.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  other: TestTenant;
  policy: string;
  otherPolicy: string;
  analyzed: string;
}
const test = suite<Ctx>('personal data: sealed per person in events, erased by deleting the key');

// Sandbox documents: the first is approved, the second gets a manual analysis.
const ERASED_CPF = '12345678909';
const KEPT_CPF = '10000000280';

test.before(async (ctx) => {
  ctx.app = await startTestApp({ SOURCE_TIMEOUT_MS: '200' });
  ctx.tenant = await provisionTenant(ctx.app);
  ctx.other = await provisionTenant(ctx.app);
  ctx.policy = (await ctx.app.call('POST', '/credit-policy/policy', { token: ctx.tenant.token, body: DEMO_CPF_POLICY })).body.id;
  ctx.otherPolicy = (await ctx.app.call('POST', '/credit-policy/policy', { token: ctx.other.token, body: DEMO_CPF_POLICY })).body.id;
});
test.after(async (ctx) => {
  await ctx.app.stop();
});

async function report(ctx: Ctx, tenant: TestTenant, policyId: string, document: string) {
  const created = await ctx.app.call('POST', '/v2/report', { token: tenant.token, body: { document, type: 'cpf', policyId } });
  assert.is(created.status, 200, JSON.stringify(created.body));
  return waitForReport(ctx.app, tenant.token, created.body.id);
}

const eventsText = async (ctx: Ctx) =>
  ((await ctx.app.database.knex('events').select(ctx.app.database.knex.raw('data::text as data, metadata::text as metadata'))) as Array<{ data: string; metadata: string }>)
    .map((e) => e.data + e.metadata)
    .join('\n');

test('no CPF, name or analyst comment is stored in plain text in the events', async (ctx) => {
  const done = await report(ctx, ctx.tenant, ctx.policy, ERASED_CPF);
  const name = done.sections.find((s: { type: { value: string } }) => s.type.value === 'BASIC_INFORMATION').sectionDetails.name as string;
  assert.ok(name.length > 3);
  ctx.analyzed = done.id;
  const analysis = await ctx.app.call('POST', '/report/analyze', { token: ctx.tenant.token, body: { id: done.id, approved: true, commentary: 'Renda confirmada com a cliente' } });
  assert.is(analysis.status, 200, JSON.stringify(analysis.body));
  const text = await eventsText(ctx);
  assert.ok(text.includes(done.id), 'the report events are there');
  for (const secret of [ERASED_CPF, name, 'Renda confirmada']) assert.not.ok(text.includes(secret), `${secret} in the events`);
});

test('POST /v1/personal-data/erase: the person reads as erased, their export files are deleted; other people and other organizations keep theirs', async (ctx) => {
  const before = await report(ctx, ctx.tenant, ctx.policy, ERASED_CPF);
  const kept = await report(ctx, ctx.tenant, ctx.policy, KEPT_CPF);
  const otherOrganization = await report(ctx, ctx.other, ctx.otherPolicy, ERASED_CPF);
  assert.is(before.document, ERASED_CPF);
  const exported = await ctx.app.call('POST', `/report/${before.id}/export`, { token: ctx.tenant.token, body: { format: 'pdf' } });
  assert.is(exported.status, 200, JSON.stringify(exported.body));
  const link = new URL(exported.body.url);
  const download = () => ctx.app.call('GET', link.pathname + link.search);
  assert.is((await download()).status, 200);

  const erased = await ctx.app.call('POST', '/v1/personal-data/erase', { token: ctx.tenant.token, body: { document: '123.456.789-09', type: 'CPF' } });
  assert.is(erased.status, 200, JSON.stringify(erased.body));
  assert.match(erased.body.subjectId, /^[0-9a-f]{64}$/);
  assert.is(erased.body.keysErased, 1);
  assert.is(erased.body.exportsDeleted, 1);
  assert.is((await download()).status, 404, 'the PDF printed the person: it is gone');

  const after = (await ctx.app.call('GET', `/v2/report/${before.id}`, { token: ctx.tenant.token })).body;
  assert.is(after.document, '***');
  for (const section of after.sections) if (section.sectionDetails !== null) assert.equal(section.sectionDetails, {}, section.type.value);
  assert.is(after.status.value, before.status.value, 'the decision stays');
  const analyzed = (await ctx.app.call('GET', `/v2/report/${ctx.analyzed}`, { token: ctx.tenant.token })).body;
  assert.equal([analyzed.document, analyzed.commentary, analyzed.status.value], ['***', '***', 'APPROVED'], 'every report of the person, comment included');

  assert.is((await ctx.app.call('GET', `/v2/report/${kept.id}`, { token: ctx.tenant.token })).body.document, KEPT_CPF);
  assert.is((await ctx.app.call('GET', `/v2/report/${otherOrganization.id}`, { token: ctx.other.token })).body.document, ERASED_CPF);

  const stream = await ctx.app.app.store.readStream(`report-${before.id}`);
  assert.ok(
    stream.every((e) => e.data.document === '***'),
    'the events read back erased',
  );

  const again = await ctx.app.call('POST', '/v1/personal-data/erase', { token: ctx.tenant.token, body: { document: ERASED_CPF, type: 'cpf' } });
  assert.equal([again.status, again.body.keysErased], [200, 0]);
});

test('a rebuild after the erasure reproduces the erased rows exactly', async (ctx) => {
  const snapshot = async () => {
    const tables: Record<string, unknown[]> = {};
    for (const table of reportProjection.tables)
      tables[table] = await ctx.app.database
        .knex(table)
        .select('*')
        .orderBy(table === 'report_decisions' ? 'event_id' : 'id');
    return tables;
  };
  const before = await snapshot();
  assert.ok(JSON.stringify(before.report_reports).includes('"***"'));
  await rebuildProjection(ctx.app.database.knex, ctx.app.app.store, reportProjection);
  const after = await snapshot();
  for (const table of reportProjection.tables) assert.equal(after[table], before[table], table);
});

test('a new report on an erased person is a new record, readable again', async (ctx) => {
  const fresh = await report(ctx, ctx.tenant, ctx.policy, ERASED_CPF);
  assert.is(fresh.document, ERASED_CPF);
});

test('erasure needs can-manage-settings and a valid document', async (ctx) => {
  const reader = await provisionTenant(ctx.app, { permissions: ['can-generate-report'] });
  const refused = await ctx.app.call('POST', '/v1/personal-data/erase', { token: reader.token, body: { document: KEPT_CPF, type: 'cpf' } });
  assert.is(refused.status, 403);
  const invalid = await ctx.app.call('POST', '/v1/personal-data/erase', { token: ctx.tenant.token, body: { document: '11111111111', type: 'cpf' } });
  assert.is(invalid.status, 400);
  const noType = await ctx.app.call('POST', '/v1/personal-data/erase', { token: ctx.tenant.token, body: { document: KEPT_CPF } });
  assert.is(noType.status, 400);
});

test('the command line erases the same way', async (ctx) => {
  const { config } = ctx.app.app;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/erase-personal-data.ts', ctx.tenant.organizationId, 'cpf', KEPT_CPF], {
    env: { ...process.env, DATABASE_URL: ctx.app.database.url, DATA_DIR: config.DATA_DIR, LOG_LEVEL: 'fatal' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.is(code, 0);
  assert.equal(JSON.parse(out).keysErased, 1);
  const documents = async () => (await ctx.app.database.knex('report_reports').where({ organization_id: ctx.tenant.organizationId }).select('document')).map((r: { document: string }) => r.document);
  await readUntil(documents, (list) => !list.includes(KEPT_CPF), { what: 'the erased document gone from the reports' });
});

test.run();
