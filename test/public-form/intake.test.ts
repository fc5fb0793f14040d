import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CollectionMessages } from '../../domain/collection/messages.ts';
import { checkDigitsOf } from '../../domain/shared/document.ts';
import { findRecipientByToken } from '../../projections/collection/queries.ts';
import { field, scrTerm } from '../collection/forms/fixtures.ts';
import { postForm } from '../collection/forms/support.ts';
import { approvedImages } from '../collection/identity/images.ts';
import { detailWhen, upload } from '../collection/support.ts';
import { pdfWith } from '../registry/support.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { personalCredit, seedProduct } from '../support/catalog.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';

const test = suite("public form: an intake never reveals nor changes an existing person's record");
let app: TestApp;
let tenant: TestTenant;
let templateId: string;
let registryId: string;
let proposalId: string;
const base = String(Date.now() % 1e9).padStart(9, '0');
const CPF = base + checkDigitsOf('cpf', base);
// Names its subject: a registry document must (domain/registry/subject.ts).
const INCOME = ['COMPROVANTE DE RENDA', 'HOLERITE', `CPF: ${CPF}`, 'Salário líquido: R$ 9.000,00'];

const call = (method: string, path: string, body?: unknown) => app.call(method, path, { token: tenant.token, body });

const form = () => ({
  fields: [
    field('renda', { label: 'Renda mensal', type: 'NUMBER', required: true, validation: { min: 0, max: 10000000 } }),
    field('estado_civil', { label: 'Estado civil', choices: ['solteiro', 'casado'] }),
    field('email', { label: 'E-mail' }),
    field('telefone', { label: 'Telefone' }),
    field('endereco', { label: 'Endereço' }),
    field('cidade', { label: 'Cidade' }),
    field('uf', { label: 'UF' }),
    field('cep', { label: 'CEP' }),
    field('data_nascimento', { label: 'Nascimento', type: 'DATE' }),
  ],
});

test.before(async () => {
  await setUp();
});
async function setUp() {
  app = await startTestApp({ RATE_LIMIT_PER_CREDENTIAL: '100000', RATE_LIMIT_PER_ORGANIZATION: '100000' });
  tenant = await provisionTenant(app, { name: 'Banco Exemplo' });
  const template = await call('POST', '/v1/collection-templates', {
    slug: 'ficha-pf',
    name: 'Ficha PF',
    items: [
      { key: 'ficha', kind: 'FORM', title: 'Ficha cadastral', config: { form: form() } },
      { key: 'scr', kind: 'CONSENT', title: 'Consulta ao SCR', config: { consent: scrTerm() } },
      { key: 'identidade', kind: 'IDENTITY', title: 'Documento com foto e selfie' },
      { key: 'renda', kind: 'DOCUMENT', title: 'Comprovante de renda', expectedType: 'COMPROVANTE_RENDA' },
    ],
    notificationChannel: 'NONE',
    publicForm: true,
  });
  assert.is(template.status, 201, JSON.stringify(template.body));
  templateId = template.body.id;
  // The lender's customer: a registry with contacts and basic data, a proposal, and one earlier collection answered by her.
  const registry = await call('POST', '/v1/registry', {
    document: CPF,
    name: 'Maria Cliente',
    entityType: 'PERSON',
    contacts: [{ name: 'Maria', email: 'maria.cliente@example.com', phone: '+5511988887777' }],
    basicData: { address: 'Rua das Palmeiras, 321', city: 'Campinas', state: 'SP', zipCode: '13010000', birthOrFoundationDate: '1980-05-17' },
  });
  assert.is(registry.status, 201, JSON.stringify(registry.body));
  registryId = registry.body.id;
  await seedProduct(app, tenant.organizationId, personalCredit({ key: 'credito-pessoal', name: 'Crédito pessoal', entityTypes: ['PERSON'], collectionTemplateSlugs: [] }));
  const proposal = await call('POST', '/v1/proposals', { document: CPF, name: 'Maria Cliente', productKey: 'credito-pessoal', requestedAmountCents: 1_000_000, requestedTermMonths: 12 });
  assert.is(proposal.status, 201, JSON.stringify(proposal.body));
  proposalId = proposal.body.id;
  const earlier = (await call('POST', '/v1/collections', { templateSlug: 'ficha-pf', registryId, recipients: [{ name: 'Maria', email: 'maria.cliente@example.com' }], send: true })).body;
  const answered = await app.call('POST', `/c/${earlier.links[0].token}/items/${earlier.items[0].id}/form`, { body: { answers: { renda: 9000, estado_civil: 'casado' } } });
  assert.is(answered.body.status, 'VALIDATED', JSON.stringify(answered.body));
  await upload(app, tenant.organizationId, earlier, 3, 0, INCOME, 'COMPROVANTE_RENDA');
  for (const item of earlier.items.slice(1, 3)) assert.is((await call('POST', `/v1/collections/${earlier.id}/items/${item.id}/waive`, { reason: 'dispensado' })).status, 200);
  await detailWhen(app, call, tenant.organizationId, earlier.id, (d) => d.status === 'COMPLETED', 'the earlier collection completed');
}
test.after(async () => {
  await app?.stop();
});

const inputData = async () => (await call('GET', `/v1/proposals/${proposalId}/input-data`)).body;
const valuesOf = (body: any) => Object.fromEntries(body.fields.filter((f: any) => !f.key.startsWith('proposta.')).map((f: any) => [f.key, f.value]));
const registryNow = async () => {
  const registry = (await call('GET', `/v1/registry/${registryId}`)).body;
  const documents = (await call('GET', `/v1/registry/${registryId}/documents`)).body as any[];
  return { contacts: registry.contacts, basicData: registry.basicData, kycStatus: registry.kycStatus, completeness: registry.completeness, documents: documents.map((d) => d.id) };
};

/** What an anonymous visitor does: types the customer's CPF on the public form, then answers everything on the page it lands on. */
async function visitorTypes(document: string) {
  const reply = await fetch(`${app.url}/formulario/${templateId}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.50' },
    body: new URLSearchParams({ nome: 'Visitante', documento: document, email: 'visitante@example.net' }).toString(),
  });
  assert.is(reply.status, 303, await reply.text());
  const token = decodeURIComponent(reply.headers.get('location')!.slice(3));
  const { collectionId } = (await findRecipientByToken(app.app.db, token))!;
  return { token, collectionId, page: await (await fetch(`${app.url}/c/${token}`, { headers: { accept: 'text/html' } })).text() };
}

let intakeId: string;

test("someone else's CPF: nothing pre-filled, nothing on file shown, and nothing the visitor sends reaches the registry, its KYC or the input data", async () => {
  const before = { input: await inputData(), registry: await registryNow() };
  assert.equal(valuesOf(before.input)['form.ficha-pf.renda'], 9000, "the customer's own answer");
  assert.is(before.registry.documents.length, 1);

  const { token, collectionId, page } = await visitorTypes(CPF);
  intakeId = collectionId;
  for (const known of ['maria.cliente@example.com', '5511988887777', 'Rua das Palmeiras', 'Campinas', '13010000', '1980-05-17', '9000', 'Já recebido anteriormente']) {
    assert.not.ok(page.includes(known), `the page shows ${known}`);
  }
  // "casado" is one of the field's choices, on every page: only its selection would be the customer's answer.
  assert.not.ok(page.includes('value="casado" selected'), "the customer's civil status chosen in advance");
  const detail = (await call('GET', `/v1/collections/${collectionId}`)).body;
  assert.equal(
    detail.items.map((i: any) => i.status),
    ['PENDING', 'PENDING', 'PENDING', 'PENDING'],
    'nothing answered by what is on file',
  );
  assert.equal(detail.items[0].details.form.suggested ?? {}, {}, 'no suggestion from the registry or earlier answers');

  const [ficha, scr, identidade, renda] = detail.items.map((i: any) => i.id);
  const answered = await app.call('POST', `/c/${token}/items/${ficha}/form`, { body: { answers: { renda: 1, estado_civil: 'solteiro' } } });
  assert.is(answered.body.status, 'VALIDATED', JSON.stringify(answered.body));
  assert.is((await postForm(app, `/c/${token}/items/${scr}/consent`, { accept: 'true', termHash: scrTerm().hash })).status, 303);
  const images = approvedImages();
  const identity = new FormData();
  identity.set('document', new Blob([new Uint8Array(images.document)]), 'doc.jpg');
  identity.set('selfie', new Blob([new Uint8Array(images.selfie)]), 'selfie.png');
  assert.is((await fetch(`${app.url}/c/${token}/items/${identidade}/identity`, { method: 'POST', body: identity, headers: { accept: 'application/json' } })).status, 200);
  const file = new FormData();
  file.set('file', new Blob([new Uint8Array(await pdfWith(INCOME))]), 'holerite.pdf');
  assert.is((await fetch(`${app.url}/c/${token}/items/${renda}`, { method: 'POST', body: file, headers: { accept: 'application/json' } })).status, 200);
  const done = await detailWhen(app, call, tenant.organizationId, collectionId, (d) => d.status === 'COMPLETED', 'the intake completed');

  assert.equal([done.origin, done.intake], ['PUBLIC_FORM', { status: 'UNLINKED', linkedAt: null, linkedBy: null }]);
  const created = done.trail.find((e: any) => e.action === 'COLLECTION_CREATED');
  assert.equal([created.actorType, created.payload.origin, created.payload.intake], ['SYSTEM', 'PUBLIC_FORM', 'UNLINKED']);
  const after = await inputData();
  assert.equal(valuesOf(after), valuesOf(before.input), 'no renda, estado_civil, consent, identity or document key from the visitor');
  assert.is(after.sha256, before.input.sha256);
  assert.equal(await registryNow(), before.registry, 'contacts, basic data, KYC status and documents untouched');
});

test('the operator links the intake: its answers reach the input data and its file the registry, and the trail says who linked it', async () => {
  const linked = await call('POST', `/v1/collections/${intakeId}/link-intake`, {});
  assert.is(linked.status, 200, JSON.stringify(linked.body));
  assert.equal([linked.body.intake.status, linked.body.intake.linkedBy], ['LINKED', { actorType: 'USER', actorId: tenant.userId }]);
  const entry = linked.body.trail[0];
  assert.equal([entry.action, entry.actorType, entry.payload], ['INTAKE_LINKED', 'USER', { registryId }]);

  const values = valuesOf(await inputData());
  assert.equal(
    [values['form.ficha-pf.renda'], values['form.ficha-pf.estado_civil'], values['kyc.consentimento_scr'], values['kyc.identidade_aprovada'], values['doc.COMPROVANTE_RENDA.valido']],
    [1, 'solteiro', true, true, true],
  );
  await eventually(async () => (await registryNow()).documents.length === 2, { timeoutMs: 20_000, what: "the intake's file among the registry's documents" });

  assert.equal((await call('POST', `/v1/collections/${intakeId}/link-intake`, {})).body, { code: 409, message: CollectionMessages.intakeAlreadyLinked });
  const other = (await call('GET', '/v1/collections?take=100')).body.items.find((c: any) => c.id !== intakeId);
  assert.equal((await call('POST', `/v1/collections/${other.id}/link-intake`, {})).body, { code: 409, message: CollectionMessages.notAnIntake });
  assert.is((await call('POST', '/v1/collections/0123456789abcdef01234567/link-intake', {})).status, 404);
});

test("a CPF without a registry: the intake creates one marked self-declared, and its answers are that registry's at once", async () => {
  const fresh = String((Date.now() + 7) % 1e9).padStart(9, '0');
  const document = fresh + checkDigitsOf('cpf', fresh);
  const { collectionId } = await visitorTypes(document);
  const detail = (await call('GET', `/v1/collections/${collectionId}`)).body;
  assert.equal([detail.origin, detail.intake.status], ['PUBLIC_FORM', 'SELF_DECLARED']);
  const registry = (await call('GET', `/v1/registry/${detail.registryId}`)).body;
  assert.equal([registry.document, registry.selfDeclared], [document, true]);
  assert.is((await call('GET', `/v1/registry/${registryId}`)).body.selfDeclared, false);
});

test.run();
