import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OperationMessages } from '../../domain/operation/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { seedProduct } from '../support/catalog.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { field } from '../collection/forms/fixtures.ts';
import { scorePolicy } from './fixtures.ts';
import { eventually } from '../support/wait.ts';
import { waitForExecution } from './journey.ts';

const test = suite('pipeline COLLECTION step through HTTP');
let app: TestApp;
let tenant: TestTenant;
let operationId: string;

const call = (method: string, path: string, body?: unknown) => app.call(method, path, { token: tenant.token, body });

test.before(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_CREDENTIAL: '100000', RATE_LIMIT_PER_ORGANIZATION: '100000' });
  tenant = await provisionTenant(app);
  await seedProduct(app, tenant.organizationId);
  // A template whose own completion would run a report: a pipeline's collection must not start it.
  const policy = await call('POST', '/credit-policy/policy', scorePolicy(800));
  assert.is(policy.status, 200, JSON.stringify(policy.body));
  const template = await call('POST', '/v1/collection-templates', {
    slug: 'ficha-pf',
    name: 'Ficha PF',
    items: [{ key: 'ficha', kind: 'FORM', title: 'Ficha cadastral', config: { form: { fields: [field('renda', { label: 'Renda mensal', type: 'NUMBER', required: true })] } } }],
    onCompleted: { kind: 'POLICY', id: policy.body.id },
  });
  assert.is(template.status, 201, JSON.stringify(template.body));
  const created = await call('POST', '/v1/operations', {
    name: 'Crédito com ficha',
    entityTypes: ['PERSON'],
    steps: [
      { kind: 'COLLECTION', templateSlug: 'ficha-pf', expiryDays: 5 },
      { kind: 'POLICY_REPORT', policies: { PERSON: policy.body.id } },
    ],
  });
  assert.is(created.status, 200, JSON.stringify(created.body));
  assert.equal(created.body.steps[0], { kind: 'COLLECTION', templateSlug: 'ficha-pf', expiryDays: 5 });
  operationId = created.body.id;
});
test.after(async () => {
  await app?.stop();
});

/** A proposal with the customer's e-mail, run through the pipeline until it waits on its collection. */
async function runToCollection(document: string) {
  const proposal = await call('POST', '/v1/proposals', {
    document,
    name: 'Maria da Silva',
    productKey: 'credito-pessoal',
    requestedAmountCents: 1_000_000,
    requestedTermMonths: 12,
    contact: { name: 'Maria da Silva', email: 'maria@example.com' },
  });
  assert.is(proposal.status, 201, JSON.stringify(proposal.body));
  const run = await call('POST', `/v1/proposals/${proposal.body.id}/run`, { kind: 'OPERATION', targetId: operationId });
  assert.is(run.status, 200, JSON.stringify(run.body));
  const waiting = await waitForExecution(app, tenant.token, run.body.operationResultId, (e) => e.status === 'WAITING_COLLECTION');
  assert.equal(
    waiting.steps.map((s: any) => s.status),
    ['WAITING', 'PENDING'],
  );
  const [opened] = waiting.collections;
  assert.equal([opened.stepIndex, opened.templateSlug, opened.completedAt], [0, 'ficha-pf', null]);
  // The execution's read model may show the collection before the collections' read model has it.
  let collection: any;
  await eventually(
    async () => {
      const read = await call('GET', `/v1/collections/${opened.collectionId}`);
      collection = read.body;
      return read.status === 200;
    },
    { timeoutMs: 20_000, what: 'the collection readable' },
  );
  return { executionId: run.body.operationResultId as string, collection };
}

test('a template the organization lacks is refused at definition, with the text', async () => {
  const refused = await call('POST', '/v1/operations', { name: 'x', entityTypes: ['PERSON'], steps: [{ kind: 'COLLECTION', templateSlug: 'nao-existe' }] });
  assert.equal(refused.body, { code: 400, message: OperationMessages.collectionTemplateNotFound('nao-existe') });
});

test('the customer answers the collection: the pipeline goes on to its report and ends APPROVED', async () => {
  const { executionId, collection } = await runToCollection('123.456.789-09');
  assert.equal([collection.templateSlug, collection.recipients.map((r: any) => r.email)], ['ficha-pf', ['maria@example.com']]);
  assert.equal(collection.behavior.onCompleted, { kind: 'NONE', id: null }, "the pipeline goes on instead of the template's target");
  const link = await call('POST', `/v1/collections/${collection.id}/recipients/${collection.recipients[0].id}/reissue-link`, {});
  assert.is(link.status, 200, JSON.stringify(link.body));
  const answered = await app.call('POST', `/c/${link.body.link.token}/items/${collection.items[0].id}/form`, { body: { answers: { renda: 8500 } } });
  assert.is(answered.body.status, 'VALIDATED', JSON.stringify(answered.body));
  const done = await waitForExecution(app, tenant.token, executionId, (e) => e.status === 'APPROVED');
  assert.equal(
    done.steps.map((s: any) => s.status),
    ['DONE', 'DONE'],
  );
  assert.ok(done.collections[0].completedAt);
  assert.is(done.reportIds.length, 1);
});

test('the collection canceled: the execution ends CANCELED with its reason', async () => {
  const { executionId, collection } = await runToCollection('529.982.247-25');
  const canceled = await call('POST', `/v1/collections/${collection.id}/cancel`, { reason: 'Cliente desistiu' });
  assert.is(canceled.status, 200, JSON.stringify(canceled.body));
  const ended = await waitForExecution(app, tenant.token, executionId, (e) => e.status === 'CANCELED');
  assert.equal(ended.steps[0].status, 'CANCELED');
  const finished = await app.app.db('operation_executions').where({ id: executionId }).first();
  assert.is(finished.status, 'CANCELED');
});

test.run();
