import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../support/app.ts';
import { seedProduct } from '../support/catalog.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { scorePolicy } from '../operation/fixtures.ts';
import { waitForExecution } from '../operation/journey.ts';
import { readUntil } from '../support/wait.ts';

const test = suite('personal data of proposals, participants and executions: sealed in events, erased with the person');
let app: TestApp;
let tenant: TestTenant;
const HOLDER = '12345678909';
const GUARANTOR = '10000000280';

test.before(async () => {
  app = await startTestApp();
  tenant = await provisionTenant(app);
  await seedProduct(app, tenant.organizationId);
});
test.after(async () => {
  await app?.stop();
});

const call = (method: string, path: string, body?: unknown) => app.call(method, path, { token: tenant.token, body });
const eventsText = async () => ((await app.database.knex('events').select(app.database.knex.raw('data::text as data'))) as Array<{ data: string }>).map((e) => e.data).join('\n');

test('holder and guarantor are sealed in the events; erasing each erases their copies in the read models, and nobody else', async () => {
  const contact = { name: 'Maria Contato', email: 'maria@example.com', phone: '+5511987654321' };
  const created = await call('POST', '/v1/proposals', {
    document: HOLDER,
    name: 'Maria Titular',
    productKey: 'credito-pessoal',
    requestedAmountCents: 500_000,
    contact,
    participants: [{ document: GUARANTOR, name: 'João Avalista', role: 'GUARANTOR', contact: { email: 'joao@example.com' } }],
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const id = created.body.id;
  const kept = (await call('POST', '/v1/proposals', { document: '11144477735', name: 'Outra Pessoa', productKey: 'credito-pessoal', requestedAmountCents: 500_000 })).body.id;
  const policy = (await call('POST', '/credit-policy/policy', scorePolicy(800))).body.id;
  const run = await call('POST', `/v1/proposals/${id}/run`, { kind: 'REPORT', targetId: policy });
  assert.is(run.status, 200, JSON.stringify(run.body));
  await waitForExecution(app, tenant.token, run.body.operationResultId, (e) => e.status === 'APPROVED');

  const text = await eventsText();
  assert.ok(text.includes(id), 'the proposal events are there');
  for (const secret of [HOLDER, GUARANTOR, 'Maria Titular', 'João Avalista', contact.email, contact.phone, 'joao@example.com']) assert.not.ok(text.includes(secret), `${secret} in the events`);

  const erase = (document: string) => call('POST', '/v1/personal-data/erase', { document, type: 'cpf' });
  assert.is((await erase(HOLDER)).status, 200);
  const row = await readUntil(
    () => app.database.knex('proposal_facts').where({ id }).first(),
    (r) => r.document === '***',
  );
  assert.equal([row.document, row.name], ['***', '***']);
  const detail = (await call('GET', `/v1/proposals/${id}`)).body;
  assert.equal([detail.document, detail.name, detail.contact], ['***', '***', { name: null, email: null, phone: null }]);
  assert.equal(
    detail.participants.map((p: any) => [p.document, p.name]),
    [[GUARANTOR, 'João Avalista']],
    'the guarantor is another person',
  );
  const execution = await readUntil(
    () => call('GET', `/v1/executions/${run.body.operationResultId}`).then((r) => r.body),
    (e) => e.document === '***',
  );
  assert.is(execution.status, 'APPROVED', 'statuses and decisions stay');
  const other = (await call('GET', `/v1/proposals/${kept}`)).body;
  assert.equal([other.document, other.name], ['11144477735', 'Outra Pessoa']);

  assert.is((await erase(GUARANTOR)).status, 200);
  const participant = (await call('GET', `/v1/proposals/${id}/participants`)).body[0];
  assert.equal([participant.document, participant.name, participant.contact], ['***', '***', { name: null, email: null, phone: null }]);
});

test.run();
