import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadProposal } from '../../application/proposal/commands.ts';
import { OperationMessages } from '../../domain/operation/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { seedProduct } from '../support/catalog.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { fullPipeline, pipelineBody, scorePolicy } from './fixtures.ts';
import { chooseOnOfferPage, newProposal, waitForExecution } from './journey.ts';

const test = suite('operations, runs and closing through HTTP');
let app: TestApp;
let tenant: TestTenant;
let receiver: Receiver;
const policies: Record<string, string> = {};

test.before(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_CREDENTIAL: '100000', RATE_LIMIT_PER_ORGANIZATION: '100000' });
  tenant = await provisionTenant(app);
  await seedProduct(app, tenant.organizationId);
  for (const [name, body] of Object.entries({ approve: scorePolicy(800), manual: scorePolicy(300), deny: scorePolicy(100), company: scorePolicy(800, 'cnpj') })) {
    const created = await call('POST', '/credit-policy/policy', body);
    assert.is(created.status, 200, JSON.stringify(created.body));
    policies[name] = created.body.id;
  }
  receiver = await startReceiver();
  assert.is((await call('POST', '/webhook', { type: 'OPERATION', url: receiver.url })).status, 200);
});
test.after(async () => {
  await receiver?.close();
  await app?.stop();
});

function call(method: string, path: string, body?: unknown, token = tenant.token) {
  return app.call(method, path, { token, body });
}

async function definePipeline(policyId: string, finalBy: 'POLICY' | 'OPERATOR' = 'POLICY'): Promise<string> {
  const created = await call('POST', '/v1/operations', pipelineBody(policyId, finalBy));
  assert.is(created.status, 200, JSON.stringify(created.body));
  return created.body.id;
}

/**
 * Run, wait for the indicative offer, and let the customer choose: on the public offer page, or
 * by an operator through the choose route.
 */
async function runToChoice(operationId: string, via: 'OFFER_PAGE' | 'CHOOSE_ROUTE') {
  const proposalId = await newProposal(app, tenant);
  const run = await call('POST', `/v1/proposals/${proposalId}/run`, { kind: 'OPERATION', targetId: operationId });
  assert.is(run.status, 200, JSON.stringify(run.body));
  const id = run.body.operationResultId;
  const waiting = await waitForExecution(app, tenant.token, id, (e) => e.status === 'WAITING_CUSTOMER');
  const offer = (await loadProposal(app.app, proposalId)).offers.find((o) => o.offerId === waiting.indicativeOfferId)!;
  assert.equal([offer.kind, offer.terms], ['INDICATIVE', { ...offer.terms, minAmountCents: 500_000, maxAmountCents: 1_000_000, minTermMonths: 6, maxTermMonths: 24, rateBpsYear: 2682 }]);
  if (via === 'OFFER_PAGE') await chooseOnOfferPage(app, tenant, proposalId, offer.offerId, '8.000,00', 12);
  else {
    const chosen = await call('POST', `/v1/proposals/${proposalId}/offers/${offer.offerId}/choose`, { amountCents: 800_000, termMonths: 12, reason: 'Cliente ligou' });
    assert.is(chosen.status, 200, JSON.stringify(chosen.body));
  }
  return { proposalId, id };
}

test('define, version, read and list a pipeline', async () => {
  const id = await definePipeline(policies.approve!);
  const edited = await call('PUT', `/v1/operations/${id}`, { ...pipelineBody(policies.approve!), name: 'Crédito pessoal v2' });
  assert.is(edited.body.version, 2);
  assert.is((await call('PUT', `/v1/operations/${id}`, { ...pipelineBody(policies.approve!), name: 'Crédito pessoal v2' })).body.version, 2, 'unchanged: no version');
  assert.is((await call('GET', `/v1/operations/${id}`)).body.name, 'Crédito pessoal v2');
  assert.equal(
    (await call('GET', `/v1/operations/${id}/versions`)).body.map((v: any) => v.version),
    [1, 2],
  );
  assert.is((await call('GET', `/v1/operations/${id}/versions/1`)).body.name, fullPipeline.name);
  assert.ok((await call('GET', '/v1/operations')).body.some((o: any) => o.id === id));
});

test('the whole journey, approval by policy: offer, choice, firm offer, closing, OPERATION webhook', async () => {
  const operationId = await definePipeline(policies.approve!);
  const { proposalId, id } = await runToChoice(operationId, 'OFFER_PAGE');
  const closing = await waitForExecution(app, tenant.token, id, (e) => e.status === 'WAITING_CLOSING');
  assert.is(closing.decision, 'APPROVED');
  assert.equal(closing.chosen.amountCents, 800_000);
  assert.ok(closing.firmOfferId);
  assert.ok(closing.steps.every((s: any) => s.status === 'DONE' && s.startedAt && s.finishedAt));
  assert.is((await loadProposal(app.app, proposalId)).status, 'OFFER_ISSUED');
  const body = { operationResultId: id, status: 'ISSUED', date: '2026-11-30', externalId: 'CTR-1' };
  const closed = await call('POST', '/operation/close', body);
  assert.equal(closed.body, { operationResultId: id, proposalId, status: 'ISSUED', date: '2026-11-30', externalId: 'CTR-1' });
  assert.equal((await call('POST', '/operation/close', body)).body, closed.body, 'a repeat: same result');
  const otherDate = await call('POST', '/operation/close', { ...body, date: '2026-12-01' });
  assert.equal(otherDate.body, { code: 409, message: OperationMessages.executionClosedOtherwise });
  assert.is((await loadProposal(app.app, proposalId)).status, 'ISSUED');
  const sent = await receiver.waitFor(2);
  const hook = JSON.parse(sent[1]!.body);
  assert.is(hook.webhookType, 'OPERATION');
  assert.equal(
    { ...hook.data, proposalId: undefined, closing: undefined },
    { operationId, operationResultId: id, document: '12345678909', status: 'ISSUED', proposalId: undefined, closing: undefined },
  );
});

test('approval by an operator: WAITING_OPERATOR, then the decision route', async () => {
  const { proposalId, id } = await runToChoice(await definePipeline(policies.approve!, 'OPERATOR'), 'CHOOSE_ROUTE');
  await waitForExecution(app, tenant.token, id, (e) => e.status === 'WAITING_OPERATOR');
  assert.is((await loadProposal(app.app, proposalId)).status, 'WAITING_OPERATOR');
  const decided = await call('POST', `/v1/executions/${id}/decision`, { approved: true, reason: 'Renda comprovada' });
  assert.is(decided.status, 200, JSON.stringify(decided.body));
  await waitForExecution(app, tenant.token, id, (e) => e.status === 'WAITING_CLOSING');
  const again = await call('POST', `/v1/executions/${id}/decision`, { approved: true });
  assert.equal(again.body, { code: 409, message: OperationMessages.executionNotWaitingOperator });
});

test('a denied report rejects the proposal at POLICY_REPORT', async () => {
  const proposalId = await newProposal(app, tenant);
  const run = await call('POST', `/v1/proposals/${proposalId}/run`, { kind: 'OPERATION', targetId: await definePipeline(policies.deny!) });
  const rejected = await waitForExecution(app, tenant.token, run.body.operationResultId, (e) => e.status === 'REJECTED');
  assert.is(rejected.rejectionStep, 'POLICY_REPORT');
});

test('kind REPORT: one report, linked; its decision ends the execution; 422 for the other document type', async () => {
  const proposalId = await newProposal(app, tenant);
  const run = await call('POST', `/v1/proposals/${proposalId}/run`, { kind: 'REPORT', targetId: policies.manual });
  assert.is(run.status, 200, JSON.stringify(run.body));
  assert.ok(run.body.reportId);
  const done = await waitForExecution(app, tenant.token, run.body.operationResultId, (e) => e.finishedAt !== null);
  assert.is(done.status, 'MANUAL_ANALYSIS');
  assert.equal(done.reportIds, [run.body.reportId]);
  // The report belongs to the proposal: its product is the proposal's.
  const { productId, productKey, productName } = (await loadProposal(app.app, proposalId)).created!;
  const report = await call('GET', `/v2/report/${run.body.reportId}?details=false`);
  assert.equal([report.status, report.body.product], [200, { id: productId, key: productKey, name: productName }]);
  const other = await call('POST', `/v1/proposals/${proposalId}/run`, { kind: 'REPORT', targetId: policies.company });
  assert.equal(other.body, { code: 422, message: Messages.policyOtherDocumentType });
});

test('a second run of the same target while it runs: 409 with its operationResultId, nothing fires', async () => {
  const proposalId = await newProposal(app, tenant);
  const operationId = await definePipeline(policies.approve!);
  const first = await call('POST', `/v1/proposals/${proposalId}/run`, { kind: 'OPERATION', targetId: operationId });
  const second = await call('POST', `/v1/proposals/${proposalId}/run`, { kind: 'OPERATION', targetId: operationId });
  assert.equal(second.body, { code: 409, message: OperationMessages.executionRunning, operationResultId: first.body.operationResultId });
  assert.is((await loadProposal(app.app, proposalId)).executions.length, 1);
});

test('errors: unknown proposal 404, bad ids 400, unknown pipeline 404, bad close date 400', async () => {
  const missing = '0123456789abcdef01234567';
  assert.equal((await call('POST', `/v1/proposals/${missing}/run`, { kind: 'REPORT', targetId: policies.approve })).body, { code: 404, message: Messages.proposalNotFound });
  assert.equal((await call('POST', '/v1/proposals/nope/run', { kind: 'REPORT', targetId: policies.approve })).body, { code: 400, message: Messages.invalidId });
  const proposalId = await newProposal(app, tenant);
  assert.equal((await call('POST', `/v1/proposals/${proposalId}/run`, { kind: 'OPERATION', targetId: missing })).body, { code: 404, message: OperationMessages.operationNotFound });
  assert.equal((await call('GET', `/v1/operations/${missing}`)).body, { code: 404, message: OperationMessages.operationNotFound });
  assert.equal((await call('GET', `/v1/executions/${missing}`)).body, { code: 404, message: OperationMessages.executionNotFound });
  for (const date of ['2026-02-30', '30/11/2026', '2026-11-3']) {
    assert.equal((await call('POST', '/operation/close', { operationResultId: missing, status: 'ISSUED', date })).body, { code: 400, message: OperationMessages.invalidCloseDate });
  }
  assert.equal((await call('POST', '/operation/close', { operationResultId: missing, status: 'ISSUED', date: '2026-11-30' })).body, { code: 404, message: OperationMessages.executionNotFound });
});

test('module gate and permissions; another organization sees 404', async () => {
  const noProposals = await provisionTenant(app, { modules: ['reports'] });
  assert.equal((await call('GET', '/v1/operations', undefined, noProposals.token)).body, { code: 403, message: Messages.proposalsModuleDisabled });
  const readOnly = await provisionTenant(app, { permissions: ['can-generate-report'] });
  assert.equal((await call('POST', '/v1/operations', fullPipeline, readOnly.token)).body, { code: 403, message: Messages.forbidden });
  const operationId = await definePipeline(policies.approve!);
  const proposalId = await newProposal(app, tenant);
  const run = await call('POST', `/v1/proposals/${proposalId}/run`, { kind: 'REPORT', targetId: policies.approve });
  const other = await provisionTenant(app);
  assert.is((await call('GET', `/v1/operations/${operationId}`, undefined, other.token)).status, 404);
  assert.is((await call('GET', `/v1/executions/${run.body.operationResultId}`, undefined, other.token)).status, 404);
  assert.equal((await call('POST', `/v1/proposals/${proposalId}/run`, { kind: 'REPORT', targetId: policies.approve }, other.token)).body, { code: 404, message: Messages.proposalNotFound });
  const close = await call('POST', '/operation/close', { operationResultId: run.body.operationResultId, status: 'CANCELED', date: '2026-11-30' }, other.token);
  assert.equal(close.body, { code: 404, message: OperationMessages.executionNotFound });
});

test.run();
