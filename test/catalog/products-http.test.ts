import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CatalogMessages as M } from '../../domain/catalog/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import type { TestApp } from '../support/app.ts';
import { personalCredit } from '../support/catalog.ts';
import { provisionTenant, serviceWithTenant } from '../support/identity.ts';

const test = suite('products through HTTP');
let app: TestApp;
const MISSING = '0123456789abcdef01234567';

const call = serviceWithTenant(test, (a) => {
  app = a;
});
const pc = personalCredit();

test('create, read, list with filters; the decimal rate gives the bps when absent', async () => {
  const body = { ...pc, key: 'pessoal-http', organizationId: MISSING, userId: 'x', surplus: 1, pricing: { ...pc.pricing, rate: { kind: 'FIXED', rate: { value: '2', period: 'MONTH' } } } };
  const created = await call('POST', '/v1/products', body);
  assert.is(created.status, 200, JSON.stringify(created.body));
  const p = created.body;
  assert.match(p.id, /^[0-9a-f]{24}$/);
  assert.is(p.version, 1);
  assert.is(p.pricing.rate.rateBpsYear, 2682);
  assert.is(p.surplus, undefined);
  assert.equal((await call('GET', `/v1/products/${p.id}`)).body, p);
  assert.equal((await call('GET', `/v1/products/${p.id.toUpperCase()}`)).body, p);

  const kyc = { ...pc, key: 'kyc-http', kind: 'KYC', entityTypes: ['COMPANY'], pricing: null, minAmountCents: null, maxAmountCents: null, minTermMonths: null, maxTermMonths: null };
  const k = (await call('POST', '/v1/products', kyc)).body;
  assert.is(k.kind, 'KYC');
  const keys = async (query: string) => (await call('GET', `/v1/products${query}`)).body.map((x: any) => x.key);
  assert.equal(await keys(''), ['kyc-http', 'pessoal-http']);
  assert.equal(await keys('?kind=KYC'), ['kyc-http']);
  assert.equal(await keys('?entityType=PERSON'), ['pessoal-http']);
  assert.equal(await keys('?enabled=false'), []);
  assert.equal((await call('GET', '/v1/products?kind=LOAN')).body, { code: 400, message: 'kind must be one of the following values: KYC, FINANCING, INSTALLMENT_SALE' });
});

test('update: a new version with the whole content; unchanged none; disable; key fixed', async () => {
  const p = (await call('POST', '/v1/products', { ...pc, key: 'versionado' })).body;
  const v2 = (await call('PUT', `/v1/products/${p.id}`, { ...pc, key: 'versionado', name: 'Pessoal 2', maxTermMonths: 48 })).body;
  assert.is(v2.version, 2);
  assert.is(v2.name, 'Pessoal 2');
  assert.is(v2.createdAt, p.createdAt);
  const again = (await call('PUT', `/v1/products/${p.id}`, { ...pc, key: 'versionado', name: 'Pessoal 2', maxTermMonths: 48 })).body;
  assert.is(again.version, 2, 'unchanged content makes no version');
  const off = (await call('PUT', `/v1/products/${p.id}`, { ...pc, key: 'versionado', name: 'Pessoal 2', maxTermMonths: 48, enabled: false })).body;
  assert.is(off.enabled, false);
  assert.is(off.version, 3);
  assert.ok((await call('GET', '/v1/products?enabled=false')).body.some((x: any) => x.id === p.id));
  assert.equal((await call('PUT', `/v1/products/${p.id}`, { ...pc, key: 'outra-chave' })).body, { code: 400, message: M.productKeyChange });
  assert.equal((await call('PUT', `/v1/products/${MISSING}`, pc)).body, { code: 404, message: M.productNotFound });
  assert.equal((await call('GET', `/v1/products/${MISSING}`)).body, { code: 404, message: M.productNotFound });
  assert.equal((await call('GET', '/v1/products/abc')).body, { code: 400, message: Messages.invalidId });
  assert.equal((await call('PUT', '/v1/products/abc', pc)).body, { code: 400, message: Messages.invalidId });
});

test('a duplicate key is 409, also when two creators race; another tenant may use the key', async () => {
  assert.is((await call('POST', '/v1/products', { ...pc, key: 'unica' })).status, 200);
  assert.equal((await call('POST', '/v1/products', { ...pc, key: 'unica', name: 'Outro' })).body, { code: 409, message: M.productKeyTaken });
  const race = await Promise.all([1, 2, 3, 4].map(() => call('POST', '/v1/products', { ...pc, key: 'corrida' })));
  assert.equal(race.map((r) => r.status).sort(), [200, 409, 409, 409]);
  assert.is((await call('GET', '/v1/products')).body.filter((x: any) => x.key === 'corrida').length, 1);
  const other = await provisionTenant(app, { name: 'Outra' });
  assert.is((await call('POST', '/v1/products', { ...pc, key: 'unica' }, other.token)).status, 200);
});

const pricing = pc.pricing!;
const invalid: Array<[string, Record<string, unknown>, string]> = [
  ['key format', { key: 'Chave Ruim' }, M.productKeyFormat],
  ['no entity type', { entityTypes: [] }, M.entityTypesRequired],
  ['repeated entity type', { entityTypes: ['PERSON', 'PERSON'] }, M.entityTypesRepeated],
  ['repeated templates', { collectionTemplateSlugs: ['ficha', 'ficha'] }, M.templatesRepeated],
  ['min above max amount', { minAmountCents: 900_000, maxAmountCents: 100_000 }, M.amountLimits],
  ['min above max term', { minTermMonths: 40, maxTermMonths: 12 }, M.termLimits],
  ['fixed amount off limits', { fixedAmountCents: 10 }, M.fixedAmountOutOfLimits],
  ['no amount', { minAmountCents: null }, M.amountRequired],
  ['no term', { maxTermMonths: null }, M.termRequired],
  ['no pricing', { pricing: null }, M.pricingRequired],
  ['KYC priced', { kind: 'KYC' }, M.kycWithoutCredit],
  ['no rate', { pricing: { ...pricing, rate: { kind: 'FIXED' } } }, M.rateRequired],
  ['no index', { pricing: { ...pricing, rate: { kind: 'INDEXED', spreadBpsYear: 300 } } }, M.indexRequired],
  ['decimal rate too high', { pricing: { ...pricing, rate: { kind: 'FIXED', rate: { value: '80', period: 'MONTH' } } } }, M.rateOutOfBounds],
  ['bps against decimal', { pricing: { ...pricing, rate: { kind: 'FIXED', rateBpsYear: 2000, rate: { value: '2', period: 'MONTH' } } } }, M.rateMismatch],
  ['fee without value', { pricing: { ...pricing, fees: [{ key: 'tac', name: 'TAC', financed: true }] } }, M.feeValueRequired],
  ['repeated fees', { pricing: { ...pricing, fees: [pricing.fees[0], pricing.fees[0]] } }, M.feeKeysRepeated],
  ['fee above max', { pricing: { ...pricing, fees: [{ key: 'tac', name: 'TAC', amountCents: 6_000_000, financed: true }] } }, M.feeTooLarge],
  ['negative rate', { pricing: { ...pricing, rate: { kind: 'FIXED', rateBpsYear: -1 } } }, 'pricing.rate.rateBpsYear must not be less than 0,pricing has an invalid value'],
  ['bad decimal', { pricing: { ...pricing, rate: { kind: 'FIXED', rate: { value: '2,5', period: 'MONTH' } } } }, `pricing.rate.rate.${M.decimalRateFormat},pricing has an invalid value`],
  ['bad kind', { kind: 'LOAN' }, 'kind must be one of the following values: KYC, FINANCING, INSTALLMENT_SALE'],
  ['bad operation id', { defaultOperationId: 'x' }, Messages.invalidId],
];
test('every 400: one text each, nothing appended', async () => {
  for (const [name, change, message] of invalid) {
    const reply = await call('POST', '/v1/products', { ...pc, key: 'invalido', ...change });
    assert.equal(reply.body, { code: 400, message: reply.status === 400 ? message : `${name}: ${JSON.stringify(reply.body)}` }, name);
  }
  assert.not.ok(
    (await call('GET', '/v1/products')).body.some((x: any) => x.key === 'invalido'),
    'no refused product was stored',
  );
});

test('gates: module 403 with the spec text, permission 403, other tenant 404', async () => {
  const p = (await call('POST', '/v1/products', { ...pc, key: 'alheio' })).body;
  const noModule = await provisionTenant(app, { name: 'Sem propostas', modules: ['reports'] });
  for (const [method, path] of [
    ['GET', '/v1/products'],
    ['GET', `/v1/products/${p.id}`],
    ['POST', '/v1/products'],
    ['PUT', `/v1/products/${p.id}`],
  ] as const) {
    assert.equal((await call(method, path, method === 'GET' ? undefined : pc, noModule.token)).body, { code: 403, message: Messages.proposalsModuleDisabled }, `${method} ${path}`);
  }
  const operator = await provisionTenant(app, { name: 'Operador', permissions: ['can-generate-report'] });
  assert.is((await call('GET', '/v1/products', undefined, operator.token)).status, 200, 'operators read the catalog');
  assert.equal((await call('POST', '/v1/products', pc, operator.token)).body, { code: 403, message: Messages.forbidden });
  assert.equal((await call('PUT', `/v1/products/${p.id}`, pc, operator.token)).body, { code: 403, message: Messages.forbidden });
  const stranger = await provisionTenant(app, { name: 'Estranha' });
  assert.equal((await call('GET', `/v1/products/${p.id}`, undefined, stranger.token)).body, { code: 404, message: M.productNotFound });
  assert.equal((await call('PUT', `/v1/products/${p.id}`, { ...pc, key: 'alheio' }, stranger.token)).body, { code: 404, message: M.productNotFound });
  assert.not.ok((await call('GET', '/v1/products', undefined, stranger.token)).body.some((x: any) => x.id === p.id));
});

test.run();
