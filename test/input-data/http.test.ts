import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reportStream } from '../../domain/report/events.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { companyForm } from '../collection/forms/fixtures.ts';
import { detailWhen, newCnpj, upload, VALID_CONTRACT } from '../collection/support.ts';
import { scorePolicy } from '../operation/fixtures.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { personalCredit, seedProduct } from '../support/catalog.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';

const test = suite('input data through HTTP');
let app: TestApp;
let tenant: TestTenant;
const document = newCnpj();
let proposalId: string;

const call = (method: string, path: string, body?: unknown, token = tenant.token) => app.call(method, path, { token, body });

test.before(async () => {
  app = await startTestApp({ RATE_LIMIT_PER_CREDENTIAL: '100000', RATE_LIMIT_PER_ORGANIZATION: '100000' });
  tenant = await provisionTenant(app);
  for (const body of [
    { slug: 'ficha-pj', name: 'Ficha PJ', items: [{ key: 'ficha', kind: 'FORM', title: 'Ficha cadastral', config: { form: companyForm() } }] },
    { slug: 'contrato', name: 'Contrato', items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }] },
  ]) {
    const created = await call('POST', '/v1/collection-templates', body);
    assert.is(created.status, 201, JSON.stringify(created.body));
  }
  await seedProduct(app, tenant.organizationId, personalCredit({ key: 'capital-giro', name: 'Capital de giro', entityTypes: ['COMPANY'], collectionTemplateSlugs: ['contrato'] }));
  const proposal = await call('POST', '/v1/proposals', { document, name: 'Mercearia Ltda', productKey: 'capital-giro', requestedAmountCents: 2_500_000, requestedTermMonths: 12 });
  assert.is(proposal.status, 201, JSON.stringify(proposal.body));
  proposalId = proposal.body.id;
});
test.after(async () => {
  await app?.stop();
});

/** A collection of the form template for the proposal's holder, answered and completed (AUTOMATIC). */
async function answeredForm(answers: Record<string, unknown>) {
  const created = await call('POST', '/v1/collections', {
    templateSlug: 'ficha-pj',
    subject: { name: 'Mercearia Ltda', document },
    recipients: [{ name: 'Ana', email: 'ana@example.com' }],
    notificationChannel: 'NONE',
    send: true,
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const c = created.body;
  const answered = await app.call('POST', `/c/${c.links[0].token}/items/${c.items[0].id}/form`, { body: { answers } });
  assert.is(answered.body.status, 'VALIDATED', JSON.stringify(answered.body));
  await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.status === 'COMPLETED', 'completion');
  return c.id as string;
}

const inputData = async () => {
  const reply = await call('GET', `/v1/proposals/${proposalId}/input-data`);
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  return reply.body;
};
const valuesOf = (body: any) => Object.fromEntries(body.fields.map((f: any) => [f.key, [f.value, f.sourceId]]));

test('a proposal without collections: its own keys, a stable hash; the most recent completed collection wins; an unchanged set keeps the hash', async () => {
  const bare = await inputData();
  assert.equal([bare.version, bare.proposalId, bare.collectionIds], [1, proposalId, []]);
  assert.match(bare.sha256, /^[0-9a-f]{64}$/);
  assert.equal(bare.fields[0], { key: 'proposta.valor_pedido', label: 'Valor pedido (R$)', type: 'NUMBER', source: 'PROPOSAL', group: 'Proposta', value: 25000, sourceId: proposalId });
  assert.equal(valuesOf(bare)['proposta.tipo_pessoa'], ['PJ', proposalId]);
  const again = await inputData();
  assert.is(again.sha256, bare.sha256, 'nothing changed: the same hash');
  assert.ok(again.asOf >= bare.asOf);

  const first = await answeredForm({ faturamento: 42000, setor: 'servicos' });
  const one = await inputData();
  assert.equal(one.collectionIds, [first]);
  assert.equal(
    [valuesOf(one)['form.ficha-pj.faturamento'], valuesOf(one)['form.ficha-pj.setor']],
    [
      [42000, first],
      ['servicos', first],
    ],
  );
  assert.is.not(one.sha256, bare.sha256, 'a new value changes the hash');

  const second = await answeredForm({ faturamento: 50000 });
  const two = await inputData();
  assert.equal(two.collectionIds, [second, first]);
  assert.equal(
    [valuesOf(two)['form.ficha-pj.faturamento'], valuesOf(two)['form.ficha-pj.setor']],
    [
      [50000, second],
      ['servicos', first],
    ],
  );
  assert.is.not(two.sha256, one.sha256, 'a changed value changes the hash');

  const third = await answeredForm({ faturamento: 50000, setor: 'servicos' });
  const three = await inputData();
  assert.equal(three.collectionIds, [third]);
  assert.is(three.sha256, two.sha256, 'the same values from another collection: the same hash');
});

test('document keys from an analysed document; the catalog lists proposal, form, document and verification keys with its filters', async () => {
  const created = await call('POST', '/v1/collections', {
    templateSlug: 'contrato',
    subject: { name: 'Mercearia Ltda', document },
    recipients: [{ name: 'Ana', email: 'ana@example.com' }],
    notificationChannel: 'NONE',
    send: true,
  });
  await upload(app, tenant.organizationId, created.body, 0, 0, VALID_CONTRACT);
  await detailWhen(app, call, tenant.organizationId, created.body.id, (d) => d.status === 'COMPLETED', 'document collection completed');
  const values = valuesOf(await inputData());
  assert.equal(
    [values['doc.CONTRATO_SOCIAL.veredito'], values['doc.CONTRATO_SOCIAL.valido'], values['doc.CONTRATO_SOCIAL.arquivos_qtd']],
    [
      ['VALIDO', created.body.id],
      [true, created.body.id],
      [1, created.body.id],
    ],
  );

  const catalog = (await call('GET', '/v1/input-data/catalog')).body as any[];
  const keys = catalog.map((f) => f.key);
  assert.equal(keys.slice(0, 9), [
    'proposta.valor_pedido',
    'proposta.prazo_pedido',
    'proposta.produto',
    'proposta.carteira',
    'proposta.tipo',
    'proposta.origem',
    'proposta.tipo_pessoa',
    'proposta.participantes_qtd',
    'proposta.avalistas_qtd',
  ]);
  assert.equal(
    catalog.find((f) => f.key === 'form.ficha-pj.faturamento'),
    { key: 'form.ficha-pj.faturamento', label: 'Faturamento mensal (Ficha PJ)', type: 'NUMBER', source: 'FORM', group: 'Formulário' },
  );
  assert.ok(keys.includes('doc.CONTRATO_SOCIAL.score_soma') && keys.includes('kyc.identidade_aprovada'));
  assert.equal([...new Set(catalog.map((f) => f.source))], ['PROPOSAL', 'FORM', 'DOCUMENT', 'VERIFICATION'], 'grouped in the spec order');
  const onlyFicha = (await call('GET', '/v1/input-data/catalog?templateSlug=ficha-pj')).body as any[];
  assert.ok(onlyFicha.filter((f) => f.source === 'FORM').every((f) => f.key.startsWith('form.ficha-pj.')));
  assert.is(onlyFicha.filter((f) => f.source === 'FORM').length, companyForm().fields.length);
  const product = (await call('GET', '/v1/input-data/catalog?productKey=capital-giro')).body as any[];
  assert.equal(
    product.filter((f) => f.source === 'FORM'),
    [],
    "the product's templates ask no form",
  );
  assert.equal((await call('GET', '/v1/input-data/catalog?templateSlug=nao-existe')).body, { code: 400, message: Messages.invalidTemplate });
  assert.equal((await call('GET', `/v1/input-data/catalog?templateSlug=${'x'.repeat(121)}`)).body, { code: 400, message: Messages.invalidTemplate });
  assert.equal((await call('GET', '/v1/input-data/catalog?templateSlug=com%20espa%C3%A7o')).body, { code: 400, message: Messages.invalidTemplate });
  assert.equal((await call('GET', '/v1/input-data/catalog?productKey=nao-existe')).body, { code: 400, message: Messages.invalidProduct });
  assert.equal((await call('GET', '/v1/input-data/catalog?productKey=N%C3%83O')).body, { code: 400, message: Messages.invalidProduct });
});

test('a REPORT run passes the input data to the policy as inputs.<key>', async () => {
  const policy = await call('POST', '/credit-policy/policy', scorePolicy(800, 'cnpj'));
  assert.is(policy.status, 200, JSON.stringify(policy.body));
  const expected = await inputData();
  const run = await call('POST', `/v1/proposals/${proposalId}/run`, { kind: 'REPORT', targetId: policy.body.id });
  assert.is(run.status, 200, JSON.stringify(run.body));
  const [requested] = await app.app.store.readStream(reportStream(run.body.reportId));
  const inputs = (requested!.data as any).inputs;
  assert.equal(inputs.form['ficha-pj'], { faturamento: 50000, setor: 'servicos' });
  assert.equal(inputs.proposta.valor_pedido, 25000);
  assert.equal(inputs.doc.CONTRATO_SOCIAL.veredito, 'VALIDO');
  const flat = expected.fields.length;
  const count = (node: unknown): number => (node !== null && typeof node === 'object' ? Object.values(node).reduce((n: number, v) => n + count(v), 0) : 1);
  assert.is(count(inputs), flat, 'every key of the input data, and nothing else');
});

test('404 for an unknown or foreign proposal, 400 for a malformed id; gates: any of three modules, one of five permissions', async () => {
  const other = await provisionTenant(app, { name: 'Other' });
  assert.equal((await call('GET', `/v1/proposals/${proposalId}/input-data`, undefined, other.token)).body, { code: 404, message: Messages.proposalNotFound });
  assert.equal((await call('GET', '/v1/proposals/0123456789abcdef01234567/input-data')).body, { code: 404, message: Messages.proposalNotFound });
  assert.equal((await call('GET', '/v1/proposals/nope/input-data')).body, { code: 400, message: Messages.invalidId });
  const none = await provisionTenant(app, { name: 'Reports only', modules: ['reports'] });
  assert.equal((await call('GET', '/v1/input-data/catalog', undefined, none.token)).body, { code: 403, message: Messages.inputDataModulesDisabled });
  const onboarding = await provisionTenant(app, { name: 'Onboarding', modules: ['onboarding'], permissions: ['can-manage-policy-rules'] });
  assert.is((await call('GET', '/v1/input-data/catalog', undefined, onboarding.token)).status, 200);
  const noPermission = await provisionTenant(app, { name: 'Webhooks', permissions: ['can-manage-webhooks'] });
  assert.equal((await call('GET', '/v1/input-data/catalog', undefined, noPermission.token)).body, { code: 403, message: Messages.forbidden });
});

test.run();
