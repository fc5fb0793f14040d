import type { Knex } from 'knex';
import type { Portfolio, PortfolioContent, Product, ProductContent } from '../../domain/catalog/product.ts';

function productOf(row: Record<string, unknown>): Product {
  return { ...(row.content as ProductContent), productId: row.id as string, organizationId: row.organization_id as string, version: row.version as number };
}

function portfolioOf(row: Record<string, unknown>): Portfolio {
  return { ...(row.content as PortfolioContent), portfolioId: row.id as string, organizationId: row.organization_id as string };
}

export async function findProductByKey(db: Knex, organizationId: string, key: string): Promise<Product | null> {
  const row = await db('catalog_products').where({ organization_id: organizationId, key }).first();
  return row ? productOf(row) : null;
}

export async function findPortfolio(db: Knex, organizationId: string, portfolioId: string): Promise<Portfolio | null> {
  const row = await db('catalog_portfolios').where({ organization_id: organizationId, id: portfolioId }).first();
  return row ? portfolioOf(row) : null;
}
