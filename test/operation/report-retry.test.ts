import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { handleCommand } from '../../application/command-handler.ts';
import { pipelineReportId, requestForRun } from '../../application/operation/run-commands.ts';
import { loadProposal } from '../../application/proposal/commands.ts';
import { executionStream } from '../../domain/operation/events.ts';
import { executionDecider } from '../../domain/operation/execution-decider.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { seedProduct } from '../support/catalog.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { scorePolicy } from './fixtures.ts';
import { newProposal, waitForExecution } from './journey.ts';

const test = suite("a pipeline's report across a crash");
let app: TestApp;
let tenant: TestTenant;

test.before(async () => {
  app = await startTestApp();
  tenant = await provisionTenant(app);
  await seedProduct(app, tenant.organizationId);
});
test.after(async () => {
  await app?.stop();
});

const reportsRequested = async () => Number((await app.app.db('events').where({ event_type: 'ReportRequested' }).count({ n: '*' }))[0]!.n);

test('a report created before a crash kept it from being recorded is recorded on resume, not created again', async () => {
  const policyId = (await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: scorePolicy(800) })).body.id;
  const proposalId = await newProposal(app, tenant);
  const executionId = app.app.ids.objectId();
  const caller = { organizationId: tenant.organizationId, userId: tenant.userId, userName: '', modules: new Set<never>() };
  // The crash: the step's report exists under its derived id, the execution never recorded it.
  await requestForRun(app.app, caller, await loadProposal(app.app, proposalId), policyId, pipelineReportId(executionId, 0));
  const before = await reportsRequested();
  await handleCommand(app.app.store, executionStream(executionId), executionDecider, {
    type: 'StartExecution',
    executionId,
    organizationId: tenant.organizationId,
    proposalId,
    kind: 'OPERATION',
    operationId: 'd'.repeat(24),
    operationVersion: 1,
    targetId: 'd'.repeat(24),
    document: '12345678909',
    entityType: 'PERSON',
    steps: [{ kind: 'POLICY_REPORT', policies: { PERSON: policyId } }],
    userId: tenant.userId,
    at: new Date().toISOString(),
  });
  const done = await waitForExecution(app, tenant.token, executionId, (e) => e.status === 'APPROVED');
  assert.equal(done.reportIds, [pipelineReportId(executionId, 0)]);
  assert.is(await reportsRequested(), before, 'no second report');
});

test.run();
