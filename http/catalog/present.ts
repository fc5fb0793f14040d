import type { Portfolio, Product } from '../../domain/catalog/product.ts';
import type { Dated } from '../../projections/catalog/queries.ts';

export function presentProduct(product: Dated<Product>) {
  const { productId, organizationId: _org, ...rest } = product;
  return { id: productId, ...rest };
}

export function presentPortfolio(portfolio: Dated<Portfolio>) {
  const { portfolioId, organizationId: _org, ...rest } = portfolio;
  return { id: portfolioId, ...rest };
}
