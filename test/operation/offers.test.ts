import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { productRate } from '../../domain/operation/offers.ts';
import type { Product } from '../../domain/catalog/product.ts';
import { personalCredit } from '../support/catalog.ts';

const test = suite('operation: the rate an indicative offer carries');

const product = (overrides: Partial<Product> = {}): Product => ({ ...personalCredit(), productId: 'c'.repeat(24), organizationId: 'a'.repeat(24), version: 1, ...overrides });
const indexed = (spread: { spreadBpsYear: number; spread?: { value: string; period: 'MONTH' | 'YEAR' } }) =>
  product({ pricing: { ...personalCredit().pricing!, rate: { kind: 'INDEXED', index: 'CDI', ...spread } } });
const cdi = (value: string | undefined) => (key: string) => (key === 'CDI' ? value : undefined);

test('a fixed rate goes on the offer as the product has it', () => {
  assert.equal(productRate(product(), cdi(undefined)), { rateBpsYear: 2682, rate: { value: '2', period: 'MONTH' }, model: 'PRICE' });
});

test('an indexed rate is the index now compounded with the spread: (1 + CDI)(1 + spread) - 1', () => {
  // 1.1065 x 1.06 - 1 = 0.17289 exactly: 17.289% a year, 1729 bps.
  assert.equal(productRate(indexed({ spreadBpsYear: 600 }), cdi('10.65')), { rateBpsYear: 1729, rate: { value: '17.289', period: 'YEAR' }, model: 'PRICE' });
  // A yearly decimal spread says the same as its bps.
  assert.equal(productRate(indexed({ spreadBpsYear: 600, spread: { value: '6', period: 'YEAR' } }), cdi('10.65'))?.rate?.value, '17.289');
});

test('no rate without pricing or without the index value', () => {
  assert.is(productRate(product({ kind: 'KYC', pricing: null }), cdi('10.65')), null);
  assert.is(productRate(indexed({ spreadBpsYear: 600 }), cdi(undefined)), null);
  assert.is(productRate(null, cdi('10.65')), null);
});

test.run();
