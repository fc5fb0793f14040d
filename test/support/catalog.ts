import { productStream, portfolioStream } from '../../domain/catalog/events.ts';
import type { PortfolioContent, ProductContent } from '../../domain/catalog/product.ts';
import { CATALOG_PROJECTION } from '../../projections/catalog/projection.ts';
import type { TestApp } from './app.ts';

let counter = 0;
const nextId = (prefix: string) => `${prefix}${String(++counter).padStart(24 - prefix.length, '0')}`;

export const personalCredit = (overrides: Partial<ProductContent> = {}): ProductContent => ({
  key: 'credito-pessoal',
  name: 'Crédito pessoal',
  kind: 'FINANCING',
  entityTypes: ['PERSON'],
  enabled: true,
  fixedAmountCents: null,
  minAmountCents: 100_000,
  maxAmountCents: 5_000_000,
  minTermMonths: 3,
  maxTermMonths: 36,
  pricing: {
    model: 'PRICE',
    rate: { kind: 'FIXED', rateBpsYear: 2682, rate: { value: '2', period: 'MONTH' } },
    fees: [{ key: 'tac', name: 'Tarifa de cadastro', amountCents: 15_000, financed: true }],
    iof: { applies: true, financed: true },
    moveDueDatesToBusinessDay: true,
  },
  defaultOperationId: null,
  collectionTemplateSlugs: [],
  ...overrides,
});

/**
 * A product in the catalog without the catalog's routes: its ProductSaved event appended and the
 * projection caught up, as the catalog's command would leave it.
 */
export async function seedProduct(app: TestApp, organizationId: string, content: ProductContent = personalCredit()): Promise<string> {
  const productId = nextId('c0');
  const { position } = await app.app.store.appendToStream(productStream(productId), [
    { type: 'ProductSaved', data: { productId, organizationId, version: 1, content, userId: 'seed', at: new Date().toISOString() } },
  ]);
  await app.app.readYourWrites([CATALOG_PROJECTION], position);
  return productId;
}

export async function seedPortfolio(app: TestApp, organizationId: string, content: PortfolioContent = { name: 'Varejo', description: null, enabled: true }): Promise<string> {
  const portfolioId = nextId('d0');
  const { position } = await app.app.store.appendToStream(portfolioStream(portfolioId), [
    { type: 'PortfolioSaved', data: { portfolioId, organizationId, content, userId: 'seed', at: new Date().toISOString() } },
  ]);
  await app.app.readYourWrites([CATALOG_PROJECTION], position);
  return portfolioId;
}
