import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ProductSaved } from '../../domain/catalog/events.ts';
import { CatalogMessages as M } from '../../domain/catalog/messages.ts';
import { productDecider, productKeyDecider, ORPHAN_CLAIM_MS } from '../../domain/catalog/product-decider.ts';
import type { ProductContent } from '../../domain/catalog/product.ts';
import { bpsYearOf } from '../../domain/catalog/rates.ts';
import { given } from '../support/decider.ts';
import { personalCredit } from '../support/catalog.ts';

const test = suite('product decider');
const ORG = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const ID = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const at = '2026-11-23T12:00:00.000Z';
const base = { productId: ID, organizationId: ORG, userId: 'u1', at };
const create = (content: ProductContent) => ({ type: 'CreateProduct' as const, ...base, content });
const update = (content: ProductContent, organizationId = ORG) => ({ type: 'UpdateProduct' as const, ...base, organizationId, content });
const saved = (content: ProductContent, version = 1): ProductSaved => ({ type: 'ProductSaved', data: { ...base, version, content } });
const pc = personalCredit();

test('create: version 1 with the whole content', () => {
  given(productDecider)
    .when(create(pc))
    .then([saved(pc)]);
});

test('create on an existing stream is refused', () => {
  given(productDecider, [saved(pc)])
    .when(create(pc))
    .thenError('conflict', M.recordExists);
});

test('update: a new version; unchanged content none; disable and enable are versions', () => {
  const renamed = { ...pc, name: 'Crédito pessoal plus' };
  given(productDecider, [saved(pc)])
    .when(update(renamed))
    .then([saved(renamed, 2)]);
  given(productDecider, [saved(pc)])
    .when(update({ ...pc }))
    .then([]);
  const disabled = { ...pc, enabled: false };
  given(productDecider, [saved(pc)])
    .when(update(disabled))
    .then([saved(disabled, 2)]);
  given(productDecider, [saved(pc), saved(disabled, 2)])
    .when(update(pc))
    .then([saved(pc, 3)]);
});

test('update: absent, other tenant, key change', () => {
  given(productDecider).when(update(pc)).thenError('not_found', M.productNotFound);
  given(productDecider, [saved(pc)])
    .when(update(pc, 'cccccccccccccccccccccccc'))
    .thenError('not_found', M.productNotFound);
  given(productDecider, [saved(pc)])
    .when(update({ ...pc, key: 'outra' }))
    .thenError('invalid', M.productKeyChange);
});

test('state keeps creation and last save times', () => {
  const { state } = given(productDecider, [saved(pc), { type: 'ProductSaved' as const, data: { ...base, version: 2, content: pc, at: '2026-11-24T00:00:00.000Z' } }]);
  assert.is(state.createdAt, at);
  assert.is(state.updatedAt, '2026-11-24T00:00:00.000Z');
  assert.is(state.product!.version, 2);
});

const fixedPricing = pc.pricing!;
const refusals: Array<[string, Partial<ProductContent>, string]> = [
  ['key format', { key: 'Crédito' }, M.productKeyFormat],
  ['no entity type', { entityTypes: [] }, M.entityTypesRequired],
  ['repeated entity type', { entityTypes: ['PERSON', 'PERSON'] }, M.entityTypesRepeated],
  ['repeated templates', { collectionTemplateSlugs: ['a', 'a'] }, M.templatesRepeated],
  ['min amount above max', { minAmountCents: 10, maxAmountCents: 5 }, M.amountLimits],
  ['min term above max', { minTermMonths: 12, maxTermMonths: 6 }, M.termLimits],
  ['fixed amount below min', { fixedAmountCents: 1 }, M.fixedAmountOutOfLimits],
  ['fixed amount above max', { fixedAmountCents: 9_000_000 }, M.fixedAmountOutOfLimits],
  ['no amount', { minAmountCents: null }, M.amountRequired],
  ['no term', { maxTermMonths: null }, M.termRequired],
  ['no pricing', { pricing: null }, M.pricingRequired],
  ['KYC with pricing', { kind: 'KYC' }, M.kycWithoutCredit],
  ['rate above bound', { pricing: { ...fixedPricing, rate: { kind: 'FIXED', rateBpsYear: 1_000_001 } } }, M.rateOutOfBounds],
  ['negative spread', { pricing: { ...fixedPricing, rate: { kind: 'INDEXED', index: 'CDI', spreadBpsYear: -1 } } }, M.rateOutOfBounds],
  ['decimal rate too high', { pricing: { ...fixedPricing, rate: { kind: 'FIXED', rateBpsYear: 1_000_000, rate: { value: '99', period: 'MONTH' } } } }, M.rateOutOfBounds],
  ['bps not the decimal rate', { pricing: { ...fixedPricing, rate: { kind: 'FIXED', rateBpsYear: 2400, rate: { value: '2', period: 'MONTH' } } } }, M.rateMismatch],
  ['fee without value', { pricing: { ...fixedPricing, fees: [{ key: 'x', name: 'X', financed: false }] } }, M.feeValueRequired],
  ['fee above the max amount', { pricing: { ...fixedPricing, fees: [{ key: 'x', name: 'X', amountCents: 5_000_000, financed: false }] } }, M.feeTooLarge],
  ['repeated fee keys', { pricing: { ...fixedPricing, fees: [fixedPricing.fees[0]!, fixedPricing.fees[0]!] } }, M.feeKeysRepeated],
];
for (const [name, change, message] of refusals) {
  test(`refused: ${name}`, () => {
    given(productDecider)
      .when(create({ ...pc, ...change }))
      .thenError('invalid', message);
    // A key never changes on update, so its format is only checked at creation.
    if (!change.key)
      given(productDecider, [saved(pc)])
        .when(update({ ...pc, ...change }))
        .thenError('invalid', message);
  });
}

test('accepted: a KYC product without credit, a fixed amount within limits, an indexed rate, a yearly decimal rate', () => {
  const kyc = { ...pc, kind: 'KYC' as const, pricing: null, minTermMonths: null, maxTermMonths: null, minAmountCents: null, maxAmountCents: null };
  assert.is(given(productDecider).when(create(kyc)).decided().length, 1);
  assert.is(
    given(productDecider)
      .when(create({ ...pc, fixedAmountCents: 200_000 }))
      .decided().length,
    1,
  );
  const indexed = { ...fixedPricing, rate: { kind: 'INDEXED' as const, index: 'CDI' as const, spreadBpsYear: 600, spread: { value: '6', period: 'YEAR' as const } } };
  assert.is(
    given(productDecider)
      .when(create({ ...pc, pricing: indexed }))
      .decided().length,
    1,
  );
});

test('bps a year of a decimal rate: a month compounds, a year is itself', () => {
  assert.is(bpsYearOf({ value: '2', period: 'MONTH' }), 2682);
  assert.is(bpsYearOf({ value: '1.99', period: 'MONTH' }), 2668);
  assert.is(bpsYearOf({ value: '12.5', period: 'YEAR' }), 1250);
});

const claim = (productId: string, when = at, claimantExists = true) => ({ organizationId: ORG, key: 'k', productId, at: when, claimantExists });
const claimed = (productId: string) => ({ type: 'ProductKeyClaimed' as const, data: { organizationId: ORG, key: 'k', productId, at } });
const later = new Date(Date.parse(at) + ORPHAN_CLAIM_MS + 1).toISOString();

test('key claim: first claimer owns the key, a retry of the same claim is no change, another is refused', () => {
  given(productKeyDecider)
    .when(claim(ID))
    .then([claimed(ID)]);
  given(productKeyDecider, [claimed(ID)])
    .when(claim(ID))
    .then([]);
  given(productKeyDecider, [claimed(ID)])
    .when(claim('dddddddddddddddddddddddd', later))
    .thenError('conflict', M.productKeyTaken);
  given(productKeyDecider, [claimed(ID)])
    .when(claim('dddddddddddddddddddddddd', at, false))
    .thenError('conflict', M.productKeyTaken);
});

test('key claim: an old claim whose product never appeared goes to the next creator', () => {
  const next = 'dddddddddddddddddddddddd';
  given(productKeyDecider, [claimed(ID)])
    .when(claim(next, later, false))
    .then([{ type: 'ProductKeyClaimed', data: { organizationId: ORG, key: 'k', productId: next, at: later } }]);
});

test.run();
