import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadProposal } from '../../application/proposal/commands.ts';
import { expireOffers, OfferExpiryJob } from '../../application/proposal/expiry.ts';
import { OperationMessages } from '../../domain/operation/messages.ts';
import { ProposalMessages } from '../../domain/proposal/messages.ts';
import { PROPOSAL_PROJECTION } from '../../projections/proposal/projection.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { seedProduct } from '../support/catalog.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { pipelineBody, scorePolicy } from './fixtures.ts';
import { newProposal, waitForExecution } from './journey.ts';
import { eventually } from '../support/wait.ts';

const test = suite('automatic expiry of indicative offers');
let app: TestApp;
let tenant: TestTenant;
let receiver: Receiver;
let operationId: string;
const DAY = 86_400_000;

test.before(async () => {
  app = await startTestApp();
  tenant = await provisionTenant(app);
  await seedProduct(app, tenant.organizationId);
  const policy = await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: scorePolicy(800) });
  const pipeline = await app.call('POST', '/v1/operations', { token: tenant.token, body: pipelineBody(policy.body.id) });
  assert.is(pipeline.status, 200, JSON.stringify(pipeline.body));
  operationId = pipeline.body.id;
  receiver = await startReceiver();
  assert.is((await app.call('POST', '/webhook', { token: tenant.token, body: { type: 'OPERATION', url: receiver.url } })).status, 200);
});
test.after(async () => {
  await receiver?.close();
  await app?.stop();
});

/** A pipeline run up to its indicative offer (valid 7 days), waiting for the customer. */
async function waitingCustomer(): Promise<{ proposalId: string; executionId: string; offerId: string }> {
  const proposalId = await newProposal(app, tenant);
  const run = await app.call('POST', `/v1/proposals/${proposalId}/run`, { token: tenant.token, body: { kind: 'OPERATION', targetId: operationId } });
  assert.is(run.status, 200, JSON.stringify(run.body));
  const waiting = await waitForExecution(app, tenant.token, run.body.operationResultId, (e) => e.status === 'WAITING_CUSTOMER');
  // The expiry scan reads the facts row: wait for the offer to be listed there.
  const { position } = await app.app.store.readStream(`proposal-${proposalId}`).then((events) => ({ position: events.at(-1)!.position }));
  await app.app.readYourWrites([PROPOSAL_PROJECTION], position);
  return { proposalId, executionId: run.body.operationResultId, offerId: waiting.indicativeOfferId };
}

/** The OPERATION webhook the receiver got for an execution, polled until it arrives. */
async function operationHook(executionId: string, timeoutMs = 20_000): Promise<any> {
  return eventually(() => receiver.json().find((h: any) => h.data?.operationResultId === executionId), {
    timeoutMs,
    what: () => `the OPERATION webhook for ${executionId}; received: ${JSON.stringify(receiver.json())}`,
  });
}

/** The app's context with its clock moved: what the scheduler sees once `days` have passed. */
const later = (days: number) => ({ ...app.app, clock: { now: () => new Date(Date.now() + days * DAY) } });

test('the job expires an offer past validUntil: offer and proposal EXPIRED, the execution EXPIRED, operation.updated sent', async () => {
  const { proposalId, executionId, offerId } = await waitingCustomer();
  assert.is(await expireOffers(later(6)), 0, 'still valid six days later');
  // A job of its own on a clock eight days ahead, every second, beside the service's own job (the lock lets one pass run at a time).
  const job = new OfferExpiryJob('* * * * * *');
  await job.start(later(8));
  try {
    const finished = await waitForExecution(app, tenant.token, executionId, (e) => e.status === 'EXPIRED');
    assert.is(finished.steps.find((s: any) => s.kind === 'WAIT_CUSTOMER_CHOICE').status, 'EXPIRED');
  } finally {
    await job.stop();
  }
  const detail = (await app.call('GET', `/v1/proposals/${proposalId}`, { token: tenant.token })).body;
  assert.is(detail.status, 'EXPIRED');
  assert.equal(
    detail.rounds[0].offers.map((o: any) => [o.id, o.status]),
    [[offerId, 'EXPIRED']],
  );
  assert.ok(detail.timeline.some((t: any) => t.type === 'OfferExpired'));
  // The facts row is a read model: read it once it has caught up with the proposal's stream.
  const proposalEvents = await app.app.store.readStream(`proposal-${proposalId}`);
  await app.app.readYourWrites([PROPOSAL_PROJECTION], proposalEvents.at(-1)!.position);
  const row = await app.app.db('proposal_facts').where({ id: proposalId }).first();
  assert.equal([row.status, row.expired_without_choice, row.waiting_offer_id], ['EXPIRED', true, null]);
  const hook = await operationHook(executionId);
  assert.equal([hook.webhookType, hook.data.status, hook.data.operationId], ['OPERATION', 'EXPIRED', operationId]);
  const status = (await loadProposal(app.app, proposalId)).status;
  assert.is(status, 'EXPIRED');
  // Idempotent: a later pass (a restarted scheduler) finds nothing more to do, and the offer cannot be chosen.
  assert.is(await expireOffers(later(9)), 0);
  const finishedEvents = (await app.app.store.readStream(`execution-${executionId}`)).filter((e) => e.type === 'ExecutionFinished');
  assert.equal(
    finishedEvents.map((e) => (e.data as { reason: string }).reason),
    [OperationMessages.offerExpiredWithoutChoice],
  );
  const choose = await app.call('POST', `/v1/proposals/${proposalId}/offers/${offerId}/choose`, { token: tenant.token, body: { amountCents: 800_000, termMonths: 12 } });
  assert.equal(choose.body, { code: 409, message: ProposalMessages.proposalClosed });
});

test('a chosen offer does not expire', async () => {
  const { proposalId, executionId, offerId } = await waitingCustomer();
  const chosen = await app.call('POST', `/v1/proposals/${proposalId}/offers/${offerId}/choose`, { token: tenant.token, body: { amountCents: 800_000, termMonths: 12 } });
  assert.is(chosen.status, 200, JSON.stringify(chosen.body));
  await waitForExecution(app, tenant.token, executionId, (e) => e.status === 'WAITING_CLOSING');
  const { proposalId: other } = await waitingCustomer();
  assert.is(await expireOffers(later(30)), 1, 'only the proposal still waiting expires');
  assert.is((await loadProposal(app.app, proposalId)).status, 'OFFER_ISSUED');
  assert.is((await loadProposal(app.app, other)).status, 'EXPIRED');
});

test.run();
