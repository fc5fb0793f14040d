import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runProposal } from '../../application/operation/run-commands.ts';
import { OperationMessages } from '../../domain/operation/messages.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { seedProduct } from '../support/catalog.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { scorePolicy } from './fixtures.ts';
import { newProposal } from './journey.ts';

const test = suite('a run whose report exists but cannot be linked');
let app: TestApp;
let tenant: TestTenant;
let policyId: string;

test.before(async () => {
  app = await startTestApp();
  tenant = await provisionTenant(app);
  await seedProduct(app, tenant.organizationId);
  policyId = (await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: scorePolicy(800) })).body.id;
});
test.after(async () => {
  await app?.stop();
});

/** The store of the service, except that execution streams cannot be written (a database gone mid-run). */
function failingExecutions(store: EventStore): EventStore {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key !== 'appendToStream') return Reflect.get(target, key, receiver);
      return (stream: string, ...rest: Parameters<EventStore['appendToStream']> extends [string, ...infer R] ? R : never) =>
        stream.startsWith('execution-') ? Promise.reject(new Error('connection lost')) : target.appendToStream(stream, ...rest);
    },
  });
}

test('503 partial with reportId and proposalRunId; the target is free for the retry', async () => {
  const proposalId = await newProposal(app, tenant);
  const caller = { organizationId: tenant.organizationId, userId: tenant.userId, userName: 'Op', modules: new Set(['reports', 'proposals'] as const) };
  let refusal: unknown;
  try {
    await runProposal({ ...app.app, store: failingExecutions(app.app.store) }, caller, proposalId, { kind: 'REPORT', targetId: policyId });
  } catch (error) {
    refusal = error;
  }
  assert.instance(refusal, DomainError);
  const partial = refusal as DomainError;
  assert.is(partial.kind, 'partial');
  assert.is(partial.message, OperationMessages.reportLinkFailed);
  assert.match(String(partial.extra?.reportId), /^[0-9a-f]{24}$/);
  assert.match(String(partial.extra?.proposalRunId), /^[0-9a-f]{24}$/);
  assert.is((await app.call('GET', `/v2/report/${partial.extra!.reportId}`, { token: tenant.token })).status, 200, 'the report exists');
  const retry = await app.call('POST', `/v1/proposals/${proposalId}/run`, { token: tenant.token, body: { kind: 'REPORT', targetId: policyId } });
  assert.is(retry.status, 200, JSON.stringify(retry.body));
});

test.run();
