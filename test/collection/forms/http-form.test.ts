import { suite } from 'uvu';
import { rebuildProjection } from '../../../platform/projections/rebuild.ts';
import { collectionProjection } from '../../../projections/collection/projection.ts';
import * as assert from 'uvu/assert';
import { CollectionMessages as M } from '../../../domain/collection/messages.ts';
import { collectionInputValues } from '../../../projections/collection/inputs-queries.ts';
import type { TestApp } from '../../support/app.ts';
import { serviceWithTenant, type TestTenant } from '../../support/identity.ts';
import { eventually } from '../../support/wait.ts';
import { startReceiver, type Receiver } from '../../support/webhook-receiver.ts';
import { receiverAccepts } from '../../support/webhook-verifier.ts';
import { detailWhen, newCnpj } from '../support.ts';
import { companyForm } from './fixtures.ts';
import { deliveryOf, ENVELOPE_FIELDS, openPage, postForm } from './support.ts';

const test = suite('FORM items through HTTP: the recipient page, validation on both sides, review, webhook, input keys');
let app: TestApp;
let tenant: TestTenant;
let receiver: Receiver;
let secret: string;
const call = serviceWithTenant(test, async (a, t) => {
  app = a;
  tenant = t;
  receiver = await startReceiver();
  const subscription = await a.call('POST', '/v1/webhook/subscriptions', { token: t.token, body: { url: `${receiver.url}/forms`, events: ['collection.form.submitted'] } });
  assert.is(subscription.status, 201, JSON.stringify(subscription.body));
  secret = subscription.body.secret;
});
test.after(() => receiver?.close());

const create = async (extra: Record<string, unknown> = {}) => {
  const reply = await call('POST', '/v1/collections', {
    subject: { name: 'Padaria Sugestão Ltda', document: newCnpj() },
    items: [{ key: 'ficha', kind: 'FORM', title: 'Ficha cadastral', config: { form: companyForm() } }],
    recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
    notificationChannel: 'NONE',
    send: true,
    ...extra,
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return reply.body;
};
const answerJson = (c: any, answers: Record<string, unknown>) => app.call('POST', `/c/${c.links[0].token}/items/${c.items[0].id}/form`, { body: { answers } });

test('the page asks with HTML rules and a suggestion; a missing answer is refused in Portuguese; valid answers validate (AUTOMATIC), completing the collection, and reach a receiver without their values', async () => {
  const c = await create();
  const path = `/c/${c.links[0].token}/items/${c.items[0].id}/form`;
  assert.equal(c.items[0].details.form, { answers: {}, suggested: { razao_social: 'Padaria Sugestão Ltda' }, submittedAt: null });
  const html = await openPage(app, c.links[0].token);
  assert.match(html, `<input type="number" step="any" name="answers[faturamento]" min="0" max="100000000" required>`);
  assert.match(html, '<select name="answers[setor]"><option value="">Selecione</option><option value="comercio">comercio</option>');
  assert.match(html, `name="answers[cep]" pattern="^[0-9]{5}-?[0-9]{3}$">`);
  assert.match(html, '<input type="date" name="answers[data_fundacao]">');
  assert.match(html, '<input type="checkbox" name="answers[exporta]" value="true"');
  assert.match(html, /Sugerido: Padaria Sugestão Ltda<\/small><br><input type="text" name="answers\[razao_social\]" value="Padaria Sugestão Ltda">/);

  const missing = await postForm(app, path, { 'answers[faturamento]': '', 'answers[setor]': 'comercio' });
  assert.is(missing.status, 400);
  assert.match(missing.html, 'O campo Faturamento mensal é obrigatório.');
  const wrong = await postForm(app, path, { 'answers[faturamento]': '12,5', 'answers[cep]': 'abc', 'answers[data_fundacao]': '2019-02-30' });
  assert.match(wrong.html, 'O campo CEP não está no formato esperado. O campo Data de fundação deve ser uma data (AAAA-MM-DD).');

  const sent = await postForm(app, path, {
    'answers[faturamento]': '250000,50',
    'answers[setor]': 'comercio',
    'answers[exporta]': 'true',
    'answers[razao_social]': 'Padaria Sugestão Ltda',
    'answers[cep]': '',
  });
  assert.equal([sent.status, sent.location], [303, `/c/${c.links[0].token}#item-${c.items[0].id}`]);
  const done = await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.status === 'COMPLETED', 'completion');
  const form = done.items[0].details.form;
  assert.equal(
    [done.items[0].status, form.answers, form.suggested],
    ['VALIDATED', { faturamento: 250000.5, setor: 'comercio', exporta: true, razao_social: 'Padaria Sugestão Ltda' }, { razao_social: 'Padaria Sugestão Ltda' }],
  );
  assert.ok(form.submittedAt);
  const entry = done.trail.find((e: any) => e.action === 'FORM_SUBMITTED');
  assert.equal([entry.actorType, entry.recipientId, entry.payload], ['RECIPIENT', c.recipients[0].id, { fields: ['faturamento', 'setor', 'exporta', 'razao_social'] }]);

  const delivery = await deliveryOf(receiver, 'collection.form.submitted', c.id);
  assert.ok(receiverAccepts(secret, delivery.headers, delivery.raw));
  assert.equal(Object.keys(delivery.data).sort(), ENVELOPE_FIELDS);
  assert.equal(delivery.data, {
    collectionId: c.id,
    itemId: c.items[0].id,
    recipientId: c.recipients[0].id,
    action: 'FORM_SUBMITTED',
    actorType: 'RECIPIENT',
    occurredAt: entry.occurredAt,
    payload: entry.payload,
  });
  assert.not.match(delivery.raw, /250000|Padaria|comercio/);

  const inputs = await eventually(
    async () => {
      const values = await collectionInputValues(app.app.db, tenant.organizationId, c.registryId);
      return 'form.avulso.faturamento' in values && values;
    },
    { timeoutMs: 20_000, what: 'input keys' },
  );
  assert.equal(inputs, { 'form.avulso.exporta': true, 'form.avulso.faturamento': 250000.5, 'form.avulso.razao_social': 'Padaria Sugestão Ltda', 'form.avulso.setor': 'comercio' });
});

test('REVIEW, from a JSON client: choices checked, the answers wait for the operator (the page shows them), a rejection asks again (the page prefilled), approval completes', async () => {
  const c = await create({ resolutionMode: 'REVIEW' });
  const badChoice = await answerJson(c, { faturamento: 10, setor: 'agro' });
  assert.equal(badChoice.body, { code: 400, message: 'O campo Setor deve ser uma destas opções: comercio, industria, servicos.' });
  const first = await answerJson(c, { faturamento: 10, setor: 'industria' });
  assert.equal(first.body, { itemId: c.items[0].id, status: 'AWAITING_OPERATOR' });
  assert.match(await openPage(app, c.links[0].token), '<dt>Faturamento mensal</dt><dd data-field="faturamento">10</dd>');
  const twice = await answerJson(c, { faturamento: 11 });
  assert.equal(twice.body, { code: 409, message: M.formAwaitingReview });
  const review = (body: unknown) => call('POST', `/v1/collections/${c.id}/items/${c.items[0].id}/review`, body);
  const rejected = await review({ decision: 'REJECT', reason: 'Faturamento incompatível com o extrato.' });
  assert.equal([rejected.status, rejected.body.items[0].status, rejected.body.items[0].resendReason], [200, 'REJECTED', 'Faturamento incompatível com o extrato.']);
  const page = await openPage(app, c.links[0].token);
  assert.match(page, 'Faturamento incompatível com o extrato.');
  assert.match(page, 'name="answers[faturamento]" min="0" max="100000000" value="10" required>');
  const again = await answerJson(c, { faturamento: 95000, setor: 'industria' });
  assert.equal(again.body.status, 'AWAITING_OPERATOR');
  const approved = await review({ decision: 'APPROVE' });
  assert.equal([approved.body.status, approved.body.items[0].status, approved.body.items[0].details.form.answers], ['COMPLETED', 'VALIDATED', { faturamento: 95000, setor: 'industria' }]);
  const foreignItem = await app.call('POST', `/c/${c.links[0].token}/items/aaaaaaaaaaaaaaaaaaaaaaaa/form`, { body: { answers: {} } });
  assert.is(foreignItem.status, 404);
});

test("a template's form: earlier answers of the registry are suggested in the next collection; erasing the subject erases the input keys", async () => {
  const template = await call('POST', '/v1/collection-templates', {
    slug: 'ficha-pj',
    name: 'Ficha PJ',
    items: [{ key: 'ficha', kind: 'FORM', title: 'Ficha cadastral', config: { form: companyForm() } }],
  });
  assert.is(template.status, 201, JSON.stringify(template.body));
  const document = newCnpj();
  const first = await create({ items: undefined, templateSlug: 'ficha-pj', subject: { name: 'Mercearia Antiga Ltda', document } });
  assert.is((await answerJson(first, { faturamento: 42000, setor: 'servicos' })).body.status, 'VALIDATED');
  await eventually(async () => 'form.ficha-pj.faturamento' in (await collectionInputValues(app.app.db, tenant.organizationId, first.registryId)), { timeoutMs: 20_000, what: 'input keys' });
  const second = await create({ items: undefined, templateSlug: 'ficha-pj', registryId: first.registryId, subject: undefined });
  assert.equal(second.items[0].details.form.suggested, { faturamento: 42000, setor: 'servicos', razao_social: 'Mercearia Antiga Ltda' });
  assert.match(await openPage(app, second.links[0].token), 'Sugerido: 42000</small><br><input type="number" step="any" name="answers[faturamento]" min="0" max="100000000" value="42000" required>');

  const erased = await call('POST', '/v1/personal-data/erase', { document, type: 'cnpj' });
  assert.is(erased.status, 200, JSON.stringify(erased.body));
  await eventually(async () => Object.keys(await collectionInputValues(app.app.db, tenant.organizationId, first.registryId)).length === 0, { timeoutMs: 20_000, what: 'input keys erased' });
  // The collection read model folds both collections again: neither the name nor an answer stays in a reply.
  for (const collection of [first, second]) {
    const detail = await eventually(
      async () => {
        const reply = await call('GET', `/v1/collections/${collection.id}`);
        const text = JSON.stringify(reply.body);
        return reply.status === 200 && !text.includes('Mercearia Antiga') && !text.includes('42000') && reply.body;
      },
      { timeoutMs: 20_000, what: 'the collection read model erased' },
    );
    assert.is(detail.id, collection.id);
  }
  const rows = () => app.app.db('collection_collections').whereIn('id', [first.id, second.id]).orderBy('id').select('id', 'status', 'registry_id', 'subject_name', 'subject_document', 'state');
  const folded = await rows();
  await rebuildProjection(app.app.db, app.app.store, collectionProjection);
  assert.equal(await rows(), folded, 'folded again on erasure = rebuilt');
});

test.run();
