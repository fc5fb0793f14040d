import bunyan from 'bunyan';
import { spawn } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import { listParked, parkedEventsOf, retryParked, skipParked } from '../../platform/projections/parking.ts';
import { ProjectionRunner } from '../../platform/projections/runner.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { COUNTER, appendCounted, appliedCounts, counter, createAppliedTable, reached } from './projections-support.ts';
import { eventually } from '../support/wait.ts';

const log = bunyan.createLogger({ name: 'test', level: 'fatal' });

interface Ctx {
  database: TestDatabase;
  store: PostgresEventStore;
}
const runtime = suite<Ctx>('parking: the runtime');

runtime.before.each(async (ctx) => {
  ctx.database = await createTestDatabase();
  await createAppliedTable(ctx.database.knex);
  ctx.store = new PostgresEventStore(ctx.database.knex, { pollIntervalMs: 10 });
});
runtime.after.each(async (ctx) => {
  await ctx.store.close();
  await ctx.database.drop();
});

const start = async (ctx: Ctx, before: (tag: string) => void) => {
  const r = new ProjectionRunner(ctx.database.knex, ctx.store, [counter('A', before)], { batchSize: 7, log, lockRetryMs: 20, flushMs: 50, retryDelayMs: 10, maxAttempts: 3 });
  await r.start();
  return r;
};

runtime('an event that keeps failing is parked; the rest is applied; once fixed, a retry applies it', async (ctx) => {
  let broken = true;
  let tries = 0;
  const r = await start(ctx, (tag) => {
    if (tag === 'Counted-poison' && broken) {
      tries++;
      throw new Error('cannot apply this one');
    }
  });
  await appendCounted(ctx.store, 10);
  const poison = (await ctx.store.appendToStream('poison-1', [{ type: 'Counted', data: { tag: 'Counted-poison' } }])).position;
  const last = (await appendCounted(ctx.store, 10, 'Counted', 10)).at(-1)!;
  await eventually(() => reached(ctx.database.knex, last), { what: 'the projection to go past the poisoned event' });
  await r.stop();

  const counts = await appliedCounts(ctx.database.knex);
  assert.is(counts.size, 20, 'every other event applied');
  assert.ok(
    [...counts.values()].every((n) => n === 1),
    'each once',
  );
  const [parked, ...more] = await listParked(ctx.database.knex);
  assert.is(more.length, 0);
  assert.is(parked!.projection, COUNTER);
  assert.is(parked!.streamName, 'poison-1');
  assert.equal(parked!.position, poison);
  assert.is(parked!.attempts, 3);
  assert.is(parked!.error, 'cannot apply this one');
  assert.ok(tries >= 4, 'the batch, then the event alone three times');
  assert.is((await parkedEventsOf(ctx.database.knex, 'poison-1')).length, 1);

  broken = false;
  const retried = await retryParked(ctx.database.knex, ctx.store, [counter('retry')], parked!.id);
  assert.is(retried.status, 'retried');
  assert.is((await appliedCounts(ctx.database.knex)).get('Counted-poison'), 1);
  assert.equal(await parkedEventsOf(ctx.database.knex, 'poison-1'), []);
  assert.equal(await listParked(ctx.database.knex), []);
});

runtime('a retry that fails again keeps the event parked; skip gives up on it', async (ctx) => {
  const r = await start(ctx, (tag) => {
    if (tag === 'Counted-poison') throw new Error('still broken');
  });
  const at = (await ctx.store.appendToStream('poison-1', [{ type: 'Counted', data: { tag: 'Counted-poison' } }])).position;
  await eventually(() => reached(ctx.database.knex, at), { what: 'the event to be parked' });
  await r.stop();
  const [parked] = await listParked(ctx.database.knex);
  try {
    await retryParked(ctx.database.knex, ctx.store, [counter('retry', () => Promise.reject(new Error('still broken')))], parked!.id);
    assert.unreachable('the retry fails');
  } catch (error) {
    assert.is((error as Error).message, 'still broken');
  }
  const [again] = await listParked(ctx.database.knex);
  assert.is(again!.attempts, 4);
  assert.is((await skipParked(ctx.database.knex, parked!.id)).status, 'skipped');
  assert.equal(await listParked(ctx.database.knex), []);
  assert.is((await listParked(ctx.database.knex, { all: true }))[0]!.status, 'skipped');
});

runtime('a database that fails is not a reason to park: the batch waits and is applied', async (ctx) => {
  let failures = 0;
  const r = await start(ctx, (tag) => {
    // More failures than attempts: had they counted as the event's fault, it would be parked.
    if (tag === 'Counted-5' && failures < 4) {
      failures++;
      throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    }
  });
  const last = (await appendCounted(ctx.store, 10)).at(-1)!;
  await eventually(() => reached(ctx.database.knex, last), { what: 'the projection to apply everything' });
  await r.stop();
  assert.is(failures, 4);
  assert.equal(await listParked(ctx.database.knex), []);
  assert.is((await appliedCounts(ctx.database.knex)).size, 10);
});

runtime.run();

const http = suite('parking: a poisoned report');
const OPS = 'ops-token-for-the-parking-test-000000001';
const operator = { headers: { authorization: `Bearer ${OPS}` } };
let app: TestApp;
let victim: TestTenant;
let other: TestTenant;
const policies = new Map<string, string>();

http.before(async () => {
  app = await startTestApp({ SOURCE_TIMEOUT_MS: '200', DB_STATEMENT_TIMEOUT_MS: '12345', DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '23456', PROJECTION_STALL_SECONDS: '10', OPS_TOKEN: OPS });
  victim = await provisionTenant(app, { name: 'Victim' });
  other = await provisionTenant(app, { name: 'Other' });
  for (const tenant of [victim, other]) {
    policies.set(tenant.token, (await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: DEMO_CPF_POLICY })).body.id);
  }
});
http.after(async () => {
  await app?.stop();
});

const request = (tenant: TestTenant) => app.call('POST', '/v2/report', { token: tenant.token, body: { document: '123.456.789-09', type: 'cpf', policyId: policies.get(tenant.token) } });

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/projections-parked.ts', ...args], {
    // The service's DATA_DIR: its keys open the personal data of the events the CLI re-applies.
    env: { ...process.env, DATABASE_URL: app.database.url, DATA_DIR: app.app.config.DATA_DIR, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr })));
}

http('other tenants go on, the poisoned report answers its failure, /ready and the CLI show it', async () => {
  // A real request, copied with a policy version the read table's integer column cannot hold.
  const real = (await request(victim)).body.id as string;
  const [requested] = await app.app.store.readStream(`report-${real}`);
  const poisonedId = app.app.ids.objectId();
  await app.app.store.appendToStream(`report-${poisonedId}`, [{ type: 'ReportRequested', data: { ...requested!.data, reportId: poisonedId, policyVersion: 3_000_000_000 } }], {
    expectedRevision: 'no_stream',
  });

  const later = await Promise.all([request(victim), request(other), request(other)]);
  for (const [i, reply] of later.entries()) {
    assert.is(reply.status, 200, JSON.stringify(reply.body));
    await waitForReport(app, (i === 0 ? victim : other).token, reply.body.id, 60_000);
  }
  await waitForReport(app, victim.token, real, 60_000);

  const failed = await app.call('GET', `/v2/report/${poisonedId}`, { token: victim.token });
  assert.is(failed.status, 409, JSON.stringify(failed.body));
  assert.equal(failed.body, { code: 409, message: Messages.reportNotProcessed });
  assert.is((await app.call('GET', `/v2/report/${poisonedId}`, { token: other.token })).status, 404, 'another tenant still sees nothing');

  const ready = await app.call('GET', '/ready', operator);
  assert.is(ready.status, 200, 'one parked event stalls nothing');
  assert.is(ready.body.projections.report.parked, 1);
  assert.is(ready.body.projections.report.stalled, false);
  assert.equal(ready.body.sessions, { statementTimeout: '12345ms', idleInTransactionSessionTimeout: '23456ms' }, 'the configured session limits are in effect');

  const listed = await cli('list');
  assert.is(listed.code, 0, listed.stderr);
  const rows = listed.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.is(rows.length, 1);
  assert.is(rows[0].streamName, `report-${poisonedId}`);
  assert.match(rows[0].error, /out of range/);

  const retried = await cli('retry', String(rows[0].id));
  assert.is(retried.code, 1, 'the cause is still there');
  assert.match(retried.stderr, /out of range/);
  assert.is((await cli('skip', String(rows[0].id))).code, 0);
  assert.equal(await listParked(app.database.knex), []);
  assert.is((await cli('retry', 'x')).code, 2, 'bad arguments');
});

http('a projection that stops advancing while events wait makes /ready answer 503, and 200 once it goes on', async () => {
  const lease = () => app.database.knex('projection_leases').where({ name: 'report' });
  // Nobody can project reports: another holder took the lease and went silent.
  await lease().update({ owner: 'silent', token: app.database.knex.raw('token + 1'), expires_at: app.database.knex.raw(`now() + interval '1 hour'`) });
  assert.is((await request(other)).status, 200);
  await eventually(async () => (await app.call('GET', '/ready')).status === 503, { what: '/ready to turn 503' });
  assert.equal((await app.call('GET', '/ready')).body, { status: 'not ready', deployment: 'sandbox' }, 'anyone learns only that');
  const stalled = (await app.call('GET', '/ready', operator)).body;
  assert.is(stalled.ready, false);
  assert.is(stalled.projections.report.stalled, true);
  assert.ok(stalled.projections.report.lagSeconds > 10, 'the lag is the age of the waiting event');
  await lease().update({ expires_at: app.database.knex.raw(`now() - interval '1 second'`) });
  await eventually(async () => (await app.call('GET', '/ready')).status === 200, { what: '/ready to recover' });
});

http.run();
