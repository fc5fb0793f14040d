import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestApp } from '../support/app.ts';
import { serviceWithTenant, type TestTenant } from '../support/identity.ts';
import { detailWhen, newCnpj, upload, VALID_CONTRACT } from '../collection/support.ts';
import { pdfWith, uploadFile } from './support.ts';
import { eventually } from '../support/wait.ts';

const test = suite('registry: a document opinion says which analyser gave it and whether it is a sandbox result (issue 37)');
let app: TestApp;
let tenant: TestTenant;
const call = serviceWithTenant(test, (a, t) => {
  app = a;
  tenant = t;
});

const KEYWORDS = { provider: 'offline-keywords', sandbox: true };

test('an upload the keyword rules classified: the detail and the listing say offline-keywords, sandbox', async () => {
  const company = { document: newCnpj(), name: 'Padaria Proveniência Ltda', entityType: 'COMPANY' };
  const registry = await call('POST', '/v1/registry', company);
  assert.is(registry.status, 201, JSON.stringify(registry.body));
  const path = `/v1/registry/${registry.body.id}/documents`;
  const sent = await uploadFile(app, tenant.token, path, { bytes: await pdfWith([...VALID_CONTRACT, company.name]), fileName: 'contrato.pdf' }, { expectedType: 'CONTRATO_SOCIAL' });
  assert.is(sent.status, 201, JSON.stringify(sent.body));
  assert.is(sent.body.opinion.provenance, null, 'no opinion yet');
  const settled = await eventually(
    async () => {
      const reply = await call('GET', `${path}/${sent.body.id}`);
      return reply.body.opinion.verdict !== null && reply.body;
    },
    { what: 'the opinion' },
  );
  assert.equal(settled.opinion.provenance, KEYWORDS);
  const listing = await call('GET', path);
  assert.equal(listing.body.find((d: { id: string }) => d.id === sent.body.id).opinion.provenance, KEYWORDS);
});

test("a collection item's file: its opinion says offline-keywords, sandbox; the operator's decision says ANALYST, not sandbox", async () => {
  const created = await call('POST', '/v1/collections', {
    subject: { name: 'Padaria Exemplo Ltda', document: newCnpj() },
    items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }],
    recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
    notificationChannel: 'NONE',
    resolutionMode: 'REVIEW',
    send: true,
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const c = created.body;
  await upload(app, tenant.organizationId, c, 0, 0, VALID_CONTRACT);
  await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.items[0].status === 'AWAITING_OPERATOR', 'the opinion');
  const detail = await call('GET', `/v1/collections/${c.id}`);
  assert.equal(detail.body.items[0].opinions[0].provenance, KEYWORDS);
  const documentId = detail.body.items[0].opinions[0].registryDocumentId;
  const decided = await call('POST', `/v1/registry/${c.registryId}/documents/${documentId}/decision`, { verdict: 'INVALIDO', comment: 'Contrato de outra empresa.' });
  assert.is(decided.status, 200, JSON.stringify(decided.body));
  assert.equal(decided.body.opinion.provenance, KEYWORDS, "the analysis's opinion keeps its provenance");
  const after = await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.items[0].opinions[0].verdict === 'INVALIDO', "the operator's decision");
  assert.equal(after.items[0].opinions[0].provenance, { provider: 'ANALYST', sandbox: false });
});

test.run();
