import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { proposalStream } from '../../domain/proposal/events.ts';
import { rebuildProjection } from '../../platform/projections/rebuild.ts';
import { DASHBOARD_TABLES, DURATIONS_KEY, SUMS_KEY } from '../../projections/dashboard/rollup.ts';
import { PROPOSAL_PROJECTION, proposalProjection } from '../../projections/proposal/projection.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant } from '../support/identity.ts';
import { NOW, dashboardSet, seedProposals } from './seed.ts';

const test = suite('dashboard rollups: always the sum of the facts, and a rebuild reproduces them');
let app: TestApp;

test.before(async () => {
  app = await startTestApp();
  // The set's dates are fixed: on the real clock the scheduler expires its waiting offer (valid
  // until 2026-11-24) whenever its minute comes, between the two snapshots compared below or not.
  app.app.clock = { now: () => new Date(NOW) };
  const tenant = await provisionTenant(app);
  const ids = await seedProposals(app, tenant.organizationId, dashboardSet('d00000000000000000000001'));
  // Later moves, each in a batch of its own: the groups the proposals left must go, not stay at zero.
  for (const [name, from, to] of [
    ['P4', 'IN_ANALYSIS', 'CANCELED'],
    ['P9', 'DRAFT', 'CANCELED'],
    ['P6', 'WAITING_OPERATOR', 'REJECTED'],
  ] as const) {
    const stream = proposalStream(ids[name]!);
    const { position } = await app.app.store.appendToStream(stream, [
      { type: 'ProposalStatusChanged', data: { proposalId: ids[name], organizationId: tenant.organizationId, at: '2026-11-17T12:00:00Z', from, to, reason: null, by: 'x', executionId: null } },
    ]);
    await app.app.readYourWrites([PROPOSAL_PROJECTION], position);
  }
});
test.after(async () => {
  await app?.stop();
});

const keyOf = (table: string) => (table.endsWith('_durations') ? DURATIONS_KEY : SUMS_KEY);
const snapshot = async () => Object.fromEntries(await Promise.all(DASHBOARD_TABLES.map(async (t) => [t, await app.database.knex(t).select('*').orderBy(keyOf(t))])));

test('no group left at zero; every dimension sums to the facts', async () => {
  for (const table of DASHBOARD_TABLES) {
    const empty = await app.database
      .knex(table)
      .where(table.endsWith('_durations') ? { n: 0 } : { received: 0 })
      .count({ n: '*' });
    assert.is(Number(empty[0]!.n), 0, table);
  }
  const facts = Number((await app.database.knex('proposal_facts').count({ n: '*' }))[0]!.n);
  for (const table of ['dashboard_daily', 'dashboard_weekly']) {
    const byDim = await app.database.knex(table).select('dim').sum({ n: 'received' }).groupBy('dim');
    assert.equal(
      byDim.map((r) => Number(r.n)),
      Array(7).fill(facts),
      table,
    );
  }
  const canceled = await app.database.knex('dashboard_daily').where({ dim: 'all', status: 'CANCELED' }).sum({ n: 'received' });
  assert.is(Number(canceled[0]!.n), 3, 'P4, P8, P9');
});

test('replay beside the live tables, switch, same rows', async () => {
  const before = await snapshot();
  assert.ok(DASHBOARD_TABLES.every((t) => before[t].length > 0));
  await rebuildProjection(app.database.knex, app.app.store, proposalProjection);
  assert.equal(await snapshot(), before);
});

test.run();
