import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY, DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { TemplateMessages } from '../../domain/collection-template/messages.ts';
import { PLATFORM_TEMPLATES } from '../../domain/collection-template/platform.ts';
import { Messages } from '../../domain/shared/messages.ts';
import type { TestApp } from '../support/app.ts';
import { provisionTenant, serviceWithTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';
import { appendCollectionEvent } from './support.ts';

const test = suite('collection templates through HTTP');
let app: TestApp;
let tenant: TestTenant;
let other: TestTenant;

const call = serviceWithTenant(test, async (a, t) => {
  app = a;
  tenant = t;
  other = await provisionTenant(a, { name: 'Other organization' });
});

const body = (slug: string, extra: Record<string, unknown> = {}) => ({
  slug,
  name: 'Crédito agrícola',
  items: [
    { kind: 'DOCUMENT', title: 'Matrícula do imóvel', expectedType: null, instructions: 'Certidão atualizada.' },
    { key: 'socios', kind: 'DOCUMENT', title: 'Documento dos sócios', expectedType: 'DOC_IDENTIDADE', appliesTo: 'PJ' },
    { key: 'ficha', kind: 'FORM', title: 'Ficha cadastral', required: false, config: { form: { fields: [{ key: 'faturamento', label: 'Faturamento mensal', type: 'NUMBER' }] } } },
  ],
  expiryDays: 10,
  reminderDays: [7, 3],
  ...extra,
});

test('the listing starts with the platform templates, each enabled, with empty metrics', async () => {
  const page = await call('GET', '/v1/collection-templates');
  assert.is(page.status, 200, JSON.stringify(page.body));
  assert.is(page.body.total, PLATFORM_TEMPLATES.length);
  assert.equal(
    page.body.items.map((t: any) => t.slug),
    PLATFORM_TEMPLATES.map((t) => t.slug),
  );
  const [company] = page.body.items;
  assert.is(company.scope, 'PLATFORM');
  assert.is(company.enabled, true);
  assert.is(company.publicFormUrl, null);
  assert.equal(company.onCompleted, { kind: 'NONE', id: null });
  assert.equal(company.metrics, { collections: 0, completedCollections: 0, completionRate: 0, averageCompletionHours: null });
  assert.ok(company.items.every((i: any) => i.appliesTo === 'PJ' && i.kind === 'DOCUMENT'));
  const kyc = page.body.items.find((t: any) => t.slug === 'kyc-refresh');
  assert.is('appliesTo' in kyc.items[0], false, 'an item for both has no appliesTo');
});

test('create, read, a new version on change only, an old version still readable', async () => {
  const created = await call('POST', '/v1/collection-templates', { ...body('agro'), organizationId: other.organizationId, unknown: 1 });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const t = created.body;
  assert.is(t.version, 1);
  assert.is(t.scope, 'ORGANIZATION');
  assert.is(t.resolutionMode, 'AUTOMATIC');
  assert.is(t.notificationChannel, 'EMAIL');
  assert.equal(t.reminderDays, [3, 7]);
  assert.equal(
    t.items.map((i: any) => [i.key, i.required]),
    [
      ['item-1', true],
      ['socios', true],
      ['ficha', false],
    ],
  );
  assert.is(t.publicFormUrl, null);
  assert.equal((await call('GET', '/v1/collection-templates/agro')).body, t);
  assert.is((await call('GET', '/v1/collection-templates/agro', undefined, other.token)).status, 404, 'another organization does not see it');

  const { slug: _slug, ...content } = body('agro', { publicForm: true, resolutionMode: 'REVIEW' });
  const v2 = await call('PUT', '/v1/collection-templates/agro', content);
  assert.is(v2.status, 200, JSON.stringify(v2.body));
  assert.is(v2.body.version, 2);
  assert.is(v2.body.id, t.id);
  assert.match(v2.body.publicFormUrl, new RegExp(`/formulario/${t.id}$`));
  assert.is((await call('PUT', '/v1/collection-templates/agro', content)).body.version, 2, 'unchanged content: no version');
  assert.is((await call('GET', '/v1/collection-templates/agro/versions/1')).body.resolutionMode, 'AUTOMATIC');
  assert.is((await call('GET', '/v1/collection-templates/agro/versions/3')).status, 404);
  assert.is((await call('GET', '/v1/collection-templates/kyc-refresh/versions/1')).body.slug, 'kyc-refresh');
  assert.is((await call('GET', '/v1/collection-templates/kyc-refresh/versions/2')).body.message, TemplateMessages.templateNotFound);
});

test('refusals: slug of a platform template or taken, bad items, editing a platform template, bad slug', async () => {
  const clash = await call('POST', '/v1/collection-templates', body('kyc-refresh'));
  assert.equal(clash.body, { code: 409, message: TemplateMessages.slugTaken });
  assert.is((await call('POST', '/v1/collection-templates', body('agro'))).status, 409);
  const wrongKind = await call('POST', '/v1/collection-templates', body('x', { items: [{ kind: 'FORM', title: 'Ficha', expectedType: 'DOC_IDENTIDADE' }] }));
  assert.equal(wrongKind.body, { code: 400, message: TemplateMessages.expectedTypeOnlyForDocument });
  assert.is((await call('POST', '/v1/collection-templates', body('x', { expiryDays: 0 }))).status, 400);
  assert.is((await call('POST', '/v1/collection-templates', body('x', { reminderDays: [12] }))).body.message, TemplateMessages.invalidReminderDays);
  const { slug: _slug, ...content } = body('kyc-refresh');
  assert.equal((await call('PUT', '/v1/collection-templates/kyc-refresh', content)).body, { code: 409, message: TemplateMessages.platformTemplateReadOnly });
  assert.is((await call('GET', '/v1/collection-templates/com%20espa%C3%A7o')).status, 400);
  assert.is((await call('GET', '/v1/collection-templates?take=0')).status, 400);
  assert.is((await call('GET', '/v1/collection-templates', undefined, other.token)).body.total, PLATFORM_TEMPLATES.length, 'nothing created for the other organization');
});

test('onCompleted names an existing policy (of the matching document type per entity) or pipeline of the organization', async () => {
  const cnpj = (await call('POST', '/credit-policy/policy', DEMO_CNPJ_POLICY)).body.id;
  const cpf = (await call('POST', '/credit-policy/policy', DEMO_CPF_POLICY)).body.id;
  const unknown = { kind: 'OPERATION', id: 'f'.repeat(24) };
  assert.equal((await call('POST', '/v1/collection-templates', body('x', { onCompleted: unknown }))).body, { code: 400, message: TemplateMessages.completionOperationNotFound });
  const foreign = (await call('POST', '/credit-policy/policy', DEMO_CPF_POLICY, other.token)).body.id;
  assert.is((await call('POST', '/v1/collection-templates', body('x', { onCompleted: { kind: 'POLICY', id: foreign } }))).body.message, TemplateMessages.completionPolicyNotFound);
  const swapped = { kind: 'NONE', id: null, byEntityType: { COMPANY: { kind: 'POLICY', id: cpf } } };
  assert.is((await call('POST', '/v1/collection-templates', body('x', { onCompleted: swapped }))).body.message, TemplateMessages.completionPolicyDocumentType);
  const onCompleted = { kind: 'NONE', id: null, byEntityType: { COMPANY: { kind: 'POLICY', id: cnpj.toUpperCase() }, PERSON: { kind: 'POLICY', id: cpf } } };
  const created = await call('POST', '/v1/collection-templates', body('with-policy', { onCompleted }));
  assert.is(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.onCompleted.byEntityType, { COMPANY: { kind: 'POLICY', id: cnpj }, PERSON: { kind: 'POLICY', id: cpf } });
});

test('search, itemKind, skip and take', async () => {
  const search = (await call('GET', `/v1/collection-templates?search=${encodeURIComponent('CREDITO agricola')}`)).body;
  assert.equal(
    search.items.map((t: any) => t.slug),
    ['agro', 'with-policy'],
    'case and accents ignored',
  );
  assert.equal(
    (await call('GET', '/v1/collection-templates?search=onboarding')).body.items.map((t: any) => t.slug),
    ['company-onboarding', 'person-onboarding'],
  );
  const forms = (await call('GET', '/v1/collection-templates?itemKind=FORM')).body;
  assert.equal(forms.items.map((t: any) => t.slug).sort(), ['agro', 'with-policy']);
  assert.is((await call('GET', '/v1/collection-templates?itemKind=SELFIE')).status, 400);
  const all = (await call('GET', '/v1/collection-templates')).body;
  assert.is(all.total, PLATFORM_TEMPLATES.length + 2);
  const page = (await call('GET', '/v1/collection-templates?skip=2&take=2')).body;
  assert.equal({ total: page.total, skip: page.skip, take: page.take }, { total: all.total, skip: 2, take: 2 });
  assert.equal(
    page.items.map((t: any) => t.slug),
    all.items.slice(2, 4).map((t: any) => t.slug),
  );
});

test('switching: every version of an own template; a platform template for the caller organization only', async () => {
  const own = await call('PATCH', '/v1/collection-templates/agro', { enabled: false });
  assert.equal(own.body, { slug: 'agro', enabled: false, updated: 2 });
  const platform = await call('PATCH', '/v1/collection-templates/person-onboarding', { enabled: false });
  assert.equal(platform.body, { slug: 'person-onboarding', enabled: false, updated: 1 });
  assert.equal((await call('PATCH', '/v1/collection-templates/person-onboarding', { enabled: false })).body.updated, 1, 'switching again: same answer');
  const listed = (await call('GET', '/v1/collection-templates')).body.items;
  assert.is(listed.find((t: any) => t.slug === 'agro').enabled, false, 'switched off, still listed');
  assert.is(listed.find((t: any) => t.slug === 'person-onboarding').enabled, false);
  assert.is((await call('GET', '/v1/collection-templates/agro/versions/1')).body.enabled, false, 'every version');
  const choices = (await call('GET', '/v1/collection-templates?enabled=true')).body.items.map((t: any) => t.slug);
  assert.equal(choices, ['company-onboarding', 'kyc-refresh', 'with-policy'], 'hidden from the choices');
  assert.equal(
    (await call('GET', '/v1/collection-templates?enabled=false')).body.items.map((t: any) => t.slug),
    ['person-onboarding', 'agro'],
  );
  assert.is((await call('GET', '/v1/collection-templates/person-onboarding', undefined, other.token)).body.enabled, true, 'other organization unaffected');
  assert.is((await call('PATCH', '/v1/collection-templates/person-onboarding', { enabled: true })).body.updated, 1);
  assert.is((await call('GET', '/v1/collection-templates/person-onboarding')).body.enabled, true);
});

test('unknown template: 404 with the contract text; no capability: 404 Recurso não encontrado.', async () => {
  for (const [method, path, payload] of [
    ['GET', '/v1/collection-templates/nope'],
    ['PATCH', '/v1/collection-templates/nope', { enabled: false }],
    ['PUT', '/v1/collection-templates/nope', body('nope')],
  ] as const) {
    assert.equal((await call(method, path, payload)).body, { code: 404, message: 'Modelo não encontrado' }, `${method} ${path}`);
  }
  const reportsOnly = await provisionTenant(app, { modules: ['reports'] });
  assert.equal((await call('GET', '/v1/collection-templates', undefined, reportsOnly.token)).body, { code: 404, message: Messages.resourceNotFound });
  const noPermission = await provisionTenant(app, { permissions: ['can-manage-credit-policy'] });
  assert.equal((await call('PATCH', '/v1/collection-templates/kyc-refresh', { enabled: false }, noPermission.token)).body, { code: 404, message: Messages.resourceNotFound });
});

test('metrics per template: collections made from it, completed, rate and mean hours to completion', async () => {
  const created = (id: string) =>
    appendCollectionEvent(app, 'CollectionCreated', {
      organizationId: tenant.organizationId,
      collectionId: id,
      occurredAt: '2026-11-10T08:00:00.000Z',
      payload: { template: 'agro', templateVersion: 2 },
    });
  await created('1'.repeat(24));
  await created('2'.repeat(24));
  await appendCollectionEvent(app, 'CollectionCompleted', { organizationId: tenant.organizationId, collectionId: '1'.repeat(24), occurredAt: '2026-11-11T08:30:00.000Z' });
  const metrics = await eventually(async () => {
    const agro = (await call('GET', '/v1/collection-templates?search=agro')).body.items[0];
    return agro.metrics.completedCollections === 1 && agro.metrics;
  });
  assert.equal(metrics, { collections: 2, completedCollections: 1, completionRate: 0.5, averageCompletionHours: 24.5 });
  assert.equal((await call('GET', '/v1/collection-templates/agro')).body.metrics, metrics);
});

test.run();
