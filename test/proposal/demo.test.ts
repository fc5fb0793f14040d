import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { catalogDemoSeeder } from '../../application/catalog/demo.ts';
import { creditPolicyDemoSeeder } from '../../application/credit-policy/demo.ts';
import { demoSeeders } from '../../application/demo.ts';
import { proposalDemoSeeder } from '../../application/proposal/demo.ts';
import { MODULES, type Principal } from '../../domain/identity/access.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant } from '../support/identity.ts';
import { waitForExecution } from '../operation/journey.ts';
import { readUntil } from '../support/wait.ts';

const test = suite('provision --demo: proposals and a pipeline');
let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});
test.after(async () => {
  await app?.stop();
});

test('after the catalog and policies: a pipeline, five proposals, three runs that end as their sandbox documents say', async () => {
  assert.ok(demoSeeders.indexOf(proposalDemoSeeder) > demoSeeders.indexOf(catalogDemoSeeder), 'seeded after the catalog it uses');
  const tenant = await provisionTenant(app, { name: 'Demo' });
  const principal = { organizationId: tenant.organizationId, userId: tenant.userId, userName: 'Demo', modules: new Set(MODULES) } as unknown as Principal;
  const demo = { organizationId: tenant.organizationId, userId: tenant.userId, principal };
  for (const seeder of [creditPolicyDemoSeeder, catalogDemoSeeder]) await seeder.seed(app.app, demo);
  const seeded = (await proposalDemoSeeder.seed(app.app, demo)) as { pipelines: Array<{ id: string }>; proposals: Array<{ id: string; name: string; operationResultId: string | null }> };
  assert.is(seeded.pipelines.length, 1);
  assert.is(seeded.proposals.length, 5);
  // Like the CLI, the seeder leaves the list projection to catch up.
  const list = await readUntil(
    async () => (await app.call('GET', '/v1/proposals', { token: tenant.token })).body,
    (list) => list.total >= 5,
    { what: 'the five proposals listed' },
  );
  assert.is(list.total, 5);
  assert.equal([...new Set(list.items.map((p: any) => p.portfolioName))].sort(), ['Correspondentes', 'Empresas', 'Varejo']);
  const ended: Record<string, string> = {};
  for (const p of seeded.proposals.filter((p) => p.operationResultId)) {
    const execution = await waitForExecution(app, tenant.token, p.operationResultId!, (e) => ['WAITING_CUSTOMER', 'WAITING_OPERATOR', 'REJECTED'].includes(e.status));
    ended[p.name] = execution.status;
  }
  assert.equal(ended, { 'Ana Souza': 'WAITING_CUSTOMER', 'Bruno Lima': 'WAITING_OPERATOR', 'Carla Dias': 'REJECTED' });
});

test.run();
