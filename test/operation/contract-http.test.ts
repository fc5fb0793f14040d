import { readOutbox } from '../../application/messaging/channels/outbox.ts';
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readPdfText } from '../../platform/pdf-text.ts';
import { pipelineReportId } from '../../application/operation/run-commands.ts';
import { OperationMessages } from '../../domain/operation/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { seedProduct } from '../support/catalog.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { eventually } from '../support/wait.ts';
import { contractStep, fullPipeline, scorePolicy } from './fixtures.ts';
import { waitForExecution } from './journey.ts';

const test = suite('pipeline contract step through HTTP');
let app: TestApp;
let tenant: TestTenant;
let receiver: Receiver;
let operationId: string;

test.before(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_CREDENTIAL: '100000', RATE_LIMIT_PER_ORGANIZATION: '100000' });
  tenant = await provisionTenant(app);
  await seedProduct(app, tenant.organizationId);
  // With the SCR section: the organization has the scr module, so the pipeline's report asks it too.
  const policy = await call('POST', '/credit-policy/policy', { ...scorePolicy(800), sections: ['BASIC_INFORMATION', 'SCR'] });
  assert.is(policy.status, 200, JSON.stringify(policy.body));
  // Report, offer, choice, approval by policy, then the contract as the last step.
  const steps = [
    ...fullPipeline.steps.slice(0, 4).map((s) => (s.kind === 'POLICY_REPORT' ? { ...s, policies: { PERSON: policy.body.id } } : s)),
    { kind: 'CONTRACT_SIGNATURE', template: contractStep().template, signers: [{ name: 'Banco Exemplo S.A.', email: 'contratos@banco.example' }] },
  ];
  const created = await call('POST', '/v1/operations', { ...fullPipeline, steps });
  assert.is(created.status, 200, JSON.stringify(created.body));
  operationId = created.body.id;
  assert.equal(
    created.body.steps[4],
    { ...contractStep(), title: 'Assinatura do contrato', signers: [{ name: 'Banco Exemplo S.A.', email: 'contratos@banco.example', phone: null }] },
    'defaults stored',
  );
  receiver = await startReceiver();
  assert.is((await call('POST', '/webhook', { type: 'OPERATION', url: receiver.url })).status, 200);
});
test.after(async () => {
  await receiver?.close();
  await app?.stop();
});

function call(method: string, path: string, body?: unknown) {
  return app.call(method, path, { token: tenant.token, body });
}

/** A proposal with the customer's contact and a guarantor, run, its offer chosen: the execution reaches the contract. */
async function runToContract() {
  const proposal = await call('POST', '/v1/proposals', {
    document: '123.456.789-09',
    name: 'Maria da Silva',
    productKey: 'credito-pessoal',
    requestedAmountCents: 1_000_000,
    requestedTermMonths: 12,
    contact: { name: 'Maria da Silva', email: 'maria@example.com', phone: '(11) 99999-8888' },
    participants: [{ document: '529.982.247-25', name: 'João Souza', role: 'GUARANTOR', contact: { email: 'joao@example.com' } }],
  });
  assert.is(proposal.status, 201, JSON.stringify(proposal.body));
  const proposalId = proposal.body.id;
  const run = await call('POST', `/v1/proposals/${proposalId}/run`, { kind: 'OPERATION', targetId: operationId });
  assert.is(run.status, 200, JSON.stringify(run.body));
  const id = run.body.operationResultId;
  const offerId = (await waitForExecution(app, tenant.token, id, (e) => e.status === 'WAITING_CUSTOMER')).indicativeOfferId;
  const chosen = await call('POST', `/v1/proposals/${proposalId}/offers/${offerId}/choose`, { amountCents: 800_000, termMonths: 12 });
  assert.is(chosen.status, 200, JSON.stringify(chosen.body));
  const execution = await waitForExecution(app, tenant.token, id, (e) => e.status === 'WAITING_SIGNATURE');
  return { id, proposalId, contract: execution.contract };
}

/** A party's steps on the recipient page's routes, as its forms post them: a code to the e-mail, the code, "Assinar". */
async function signAsParty(collectionId: string, itemId: string, recipient: { id: string; email: string }) {
  // The links' raw tokens are never stored: a new link for the party, as an operator would send it.
  const reissued = await call('POST', `/v1/collections/${collectionId}/recipients/${recipient.id}/reissue-link`, {});
  assert.is(reissued.status, 200, JSON.stringify(reissued.body));
  const base = `/c/${encodeURIComponent(reissued.body.link.token)}/items/${itemId}/signature`;
  const step = async (path: string, body: unknown) => {
    const reply = await app.call('POST', `${base}/${path}`, { body, headers: { 'user-agent': 'Navegador de Teste/1.0' } });
    assert.is(reply.status, 200, `${path}: ${JSON.stringify(reply.body)}`);
  };
  await step('code', { channel: 'EMAIL' });
  const message: { text: string } = await eventually(
    async () => (await readOutbox(app.app, (q) => q.where({ channel: 'EMAIL' }))).find((m) => m.to === recipient.email && m.subject.includes('código para assinar')),
    { timeoutMs: 20_000, what: `the code to ${recipient.email}` },
  );
  await step('verify', { code: /é (\d{6})\./.exec(message.text)![1] });
  await step('sign', {});
}

async function operationHook(id: string) {
  return eventually(async () => receiver.json().find((hook) => hook.data?.operationResultId === id), { timeoutMs: 20_000, what: `OPERATION webhook of ${id}` });
}

test('the contract is generated, signed by every party, formalized, and the outcome comes by the OPERATION webhook', async () => {
  const { id, contract } = await runToContract();
  assert.is(contract.formalizedAt, null);
  // The execution's read model may be ahead of the collection's.
  const collection = await eventually(
    async () => {
      const reply = await call('GET', `/v1/collections/${contract.collectionId}`);
      return reply.status === 200 && reply.body;
    },
    { timeoutMs: 20_000, what: 'the contract collection in its read model' },
  );
  assert.is(collection.items.length, 1);
  assert.equal([collection.items[0].kind, collection.items[0].config.signature.mode, collection.items[0].config.signature.registryDocumentId], ['SIGNATURE', 'JOINT', contract.contractDocumentId]);
  assert.equal(
    collection.recipients.map((r: any) => r.name),
    ['Maria da Silva', 'João Souza', 'Banco Exemplo S.A.'],
  );
  const [created] = await app.app.store.readStream(`collection-${contract.collectionId}`, { maxCount: 1 });
  const createdData = created!.data as any;
  assert.is(createdData.actorType, 'SYSTEM');
  assert.equal(
    {
      registryId: createdData.payload.registryId,
      template: createdData.payload.template,
      recipients: createdData.payload.recipients,
      items: createdData.payload.items,
      contractDocumentId: createdData.payload.contractDocumentId,
    },
    { registryId: collection.registryId, template: null, recipients: 3, items: 1, contractDocumentId: contract.contractDocumentId },
  );

  const download = await fetch(`${app.url}/v1/registry/${collection.registryId}/documents/${contract.contractDocumentId}/download`, { headers: { authorization: `Bearer ${tenant.token}` } });
  assert.is(download.status, 200);
  const pdf = Buffer.from(await download.arrayBuffer());
  const text = (await readPdfText(pdf))!.text.replace(/\s+/g, ' ');
  for (const expected of [
    'Emitente: Maria da Silva, 123.456.789-09',
    'Valor: R$ 8.000,00 em 12 parcelas',
    'Partes: Maria da Silva (cliente); João Souza (avalista); Banco Exemplo S.A. (interveniente)',
  ]) {
    assert.ok(text.includes(expected), `the contract says: ${expected}`);
  }
  assert.is(collection.items[0].config.signature.documentSha256, createHash('sha256').update(pdf).digest('hex'));

  // Each party, on their recipient link, proves their e-mail with the one-time code it received and signs.
  for (const recipient of collection.recipients) await signAsParty(contract.collectionId, collection.items[0].id, recipient);
  const done = await waitForExecution(app, tenant.token, id, (e) => e.status === 'APPROVED');
  assert.equal(done.reportIds, [pipelineReportId(id, 0)], "the step's report id is derived from the execution");
  const requested = (await app.app.store.readStream(`report-${done.reportIds[0]}`))[0]!.data as any;
  assert.equal([requested.skippedSections, requested.ranWithoutSCRReason], [[], null], "the pipeline's report ran with the organization's SCR");
  assert.ok(done.contract.formalizedAt);
  assert.equal(
    done.steps.map((s: any) => s.status),
    ['DONE', 'DONE', 'DONE', 'DONE', 'DONE'],
  );
  const formalized = (await app.app.store.readStream(`execution-${id}`)).find((e) => e.type === 'ExecutionContractFormalized')!.data as any;
  assert.equal([formalized.collectionId, formalized.contractDocumentId, formalized.provider], [contract.collectionId, contract.contractDocumentId, 'interno']);
  const hook = await operationHook(id);
  assert.equal([hook.webhookType, hook.data.operationId, hook.data.status, hook.data.document], ['OPERATION', operationId, 'APPROVED', '12345678909']);
});

test('a canceled contract collection stops the pipeline with the reason', async () => {
  const { id, contract } = await runToContract();
  const canceled = await call('POST', `/v1/collections/${contract.collectionId}/cancel`, { reason: 'Cliente desistiu' });
  assert.is(canceled.status, 200, JSON.stringify(canceled.body));
  const ended = await waitForExecution(app, tenant.token, id, (e) => e.status === 'CANCELED');
  assert.is(ended.contract.formalizedAt, null);
  assert.is(ended.steps[4].status, 'CANCELED');
  const finished = (await app.app.store.readStream(`execution-${id}`)).find((e) => e.type === 'ExecutionFinished')!.data as any;
  assert.is(finished.reason, OperationMessages.contractCanceled('Cliente desistiu'));
  const hook = await operationHook(id);
  assert.is(hook.data.status, 'CANCELED');
});

test.run();
