import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { START } from '../../platform/eventstore/port.ts';
import { lockCheckpoint } from '../../platform/projections/checkpoints.ts';
import type { Projection } from '../../platform/projections/projection.ts';
import { rebuildProjection } from '../../platform/projections/rebuild.ts';
import { creditPolicyProjection } from '../../projections/credit-policy/projection.ts';
import { identityProjection } from '../../projections/identity/projection.ts';
import { reportProjection } from '../../projections/report/projection.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';

const test = suite('blue/green rebuild under a live service');
let app: TestApp;
let tenant: TestTenant;
let policyId: string;
const reports: string[] = [];
const projections: Projection[] = [identityProjection, creditPolicyProjection, reportProjection];

test.before(async () => {
  // The readers below ask as fast as the service answers: no request limit may be what they measure.
  app = await startTestApp({ SOURCE_TIMEOUT_MS: '200', RATE_LIMIT_PER_CREDENTIAL: '1000000', RATE_LIMIT_PER_ORGANIZATION: '1000000' });
  tenant = await provisionTenant(app);
  policyId = (await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: DEMO_CPF_POLICY })).body.id;
  for (const document of ['123.456.789-09', '100.000.001-08', '100.000.002-80']) {
    reports.push((await app.call('POST', '/v2/report', { token: tenant.token, body: { document, type: 'cpf', policyId } })).body.id);
  }
  for (const id of reports) await waitForReport(app, tenant.token, id, 60_000);
});
test.after(async () => {
  await app?.stop();
});

/** Every row of the projection's tables, in a stable order. */
async function snapshot(projection: Projection): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of projection.tables) out[table] = ((await app.database.knex(table).select('*')) as unknown[]).map((row) => JSON.stringify(row)).sort();
  return out;
}

/**
 * Index, constraint and trigger names and definitions of the projection's tables: a later
 * migration may name them, and the identity tables' triggers keep session caches honest.
 */
async function schemaOf(projection: Projection) {
  const { rows } = await app.database.knex.raw(
    `select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' and tablename = any(?)
     union all
     select conrelid::regclass::text, conname, pg_get_constraintdef(oid) from pg_constraint where conrelid = any(?::regclass[])
     union all
     select tgrelid::regclass::text, tgname, pg_get_triggerdef(oid) from pg_trigger where tgrelid = any(?::regclass[]) and not tgisinternal
     order by 1, 2, 3`,
    [projection.tables as string[], projection.tables as string[], projection.tables as string[]],
  );
  return rows;
}

test('reads during a rebuild of identity, policies and reports never fail, and the tables come back the same', async () => {
  const before = await Promise.all(projections.map(async (p) => ({ rows: await snapshot(p), schema: await schemaOf(p) })));
  const failures: string[] = [];
  let served = 0;
  let reading = true;
  const reader = async (n: number) => {
    for (let i = n; reading; i++) {
      const id = reports[i % reports.length]!;
      const [report, policy] = await Promise.all([app.call('GET', `/v2/report/${id}`, { token: tenant.token }), app.call('GET', `/credit-policy/policy/${policyId}`, { token: tenant.token })]);
      if (report.status !== 200 || report.body.id !== id || !report.body.reportProgress?.isFinalized) failures.push(`report ${report.status} ${JSON.stringify(report.body)}`);
      if (policy.status !== 200 || policy.body.id !== policyId) failures.push(`policy ${policy.status} ${JSON.stringify(policy.body)}`);
      served++;
    }
  };
  const readers = [0, 1, 2, 3].map(reader);
  try {
    for (const projection of projections) {
      const from = served;
      await rebuildProjection(app.database.knex, app.app.store, projection, { batchSize: 2 });
      // Reads went on through this rebuild: at least one after it began ended after it finished.
      const waitedFor = served;
      while (served === waitedFor) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.ok(served > from, `reads ran during the ${projection.name} rebuild`);
    }
  } finally {
    reading = false;
    await Promise.all(readers);
  }
  assert.equal(failures.slice(0, 5), [], `${failures.length} failed reads of ${served}`);
  for (const [i, projection] of projections.entries()) {
    assert.equal(await snapshot(projection), before[i]!.rows, `${projection.name}: same rows`);
    assert.equal(await schemaOf(projection), before[i]!.schema, `${projection.name}: same indexes and constraints`);
  }
});

for (const projection of projections) {
  test(`${projection.name}: applying its whole history a second time changes nothing (idempotent)`, async () => {
    const before = await snapshot(projection);
    assert.ok(
      Object.values(before).some((rows) => rows.length > 0),
      'something to compare',
    );
    await app.database.knex.transaction(async (trx) => {
      // Under the checkpoint's lock, as a retry of a parked event applies them: no live batch in between.
      await lockCheckpoint(trx, projection.name);
      for (let after = START; ;) {
        const page = await app.app.store.readAll({ after, filter: { eventTypes: projection.eventTypes }, maxCount: 1000 });
        if (page.events.length) await projection.handle(page.events, trx);
        if (page.events.length < 1000) break;
        after = page.checkpoint;
      }
    });
    assert.equal(await snapshot(projection), before);
  });
}

test.run();
