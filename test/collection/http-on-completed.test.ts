import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadProposal } from '../../application/proposal/commands.ts';
import { checkDigitsOf } from '../../domain/shared/document.ts';
import type { TestApp } from '../support/app.ts';
import { personalCredit, seedProduct } from '../support/catalog.ts';
import { serviceWithTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';
import { pipelineBody, scorePolicy } from '../operation/fixtures.ts';

const test = suite('collections through HTTP: onCompleted OPERATION runs the pipeline');
let app: TestApp;
let tenant: TestTenant;
const call = serviceWithTenant(test, async (a, t) => {
  app = a;
  tenant = t;
});

const cpfBase = '529982247';
const cpf = cpfBase + checkDigitsOf('cpf', cpfBase);

async function templateRunning(operationId: string) {
  const template = await call('POST', '/v1/collection-templates', {
    slug: 'with-pipeline',
    name: 'Com esteira',
    items: [{ key: 'foto', kind: 'CUSTOM', title: 'Foto do documento' }],
    onCompleted: { kind: 'OPERATION', id: operationId },
  });
  assert.is(template.status, 201, JSON.stringify(template.body));
}

test('a completed collection opens a proposal for its subject with the product whose default pipeline it is, and runs it once', async () => {
  const policy = await call('POST', '/credit-policy/policy', scorePolicy(800));
  assert.is(policy.status, 200, JSON.stringify(policy.body));
  const pipeline = await call('POST', '/v1/operations', pipelineBody(policy.body.id));
  assert.is(pipeline.status, 200, JSON.stringify(pipeline.body));
  await seedProduct(app, tenant.organizationId, personalCredit({ defaultOperationId: pipeline.body.id }));
  await templateRunning(pipeline.body.id);
  const created = await call('POST', '/v1/collections', {
    templateSlug: 'with-pipeline',
    subject: { name: 'Maria Cliente', document: cpf },
    recipients: [{ name: 'Maria Cliente', email: 'maria@example.com' }],
    send: true,
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const collectionId = created.body.id;
  const waived = await call('POST', `/v1/collections/${collectionId}/items/${created.body.items[0].id}/waive`, {});
  assert.is(waived.body.status, 'COMPLETED');

  const proposal = await eventually(
    async () => {
      const state = await loadProposal(app.app, collectionId);
      return state.executions.length > 0 ? state : undefined;
    },
    { timeoutMs: 20_000, what: 'the pipeline run on the proposal opened for the collection' },
  );
  assert.equal([proposal.created?.document, proposal.created?.externalId, proposal.created?.origin], [cpf, collectionId, 'API']);
  assert.is(proposal.executions.length, 1);
  const read = await call('GET', `/v1/proposals/${collectionId}`);
  assert.is(read.status, 200, JSON.stringify(read.body));
});

test.run();
