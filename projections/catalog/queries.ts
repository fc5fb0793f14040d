import type { Knex } from 'knex';
import type { Portfolio, PortfolioContent, Product, ProductContent, ProductKind } from '../../domain/catalog/product.ts';
import { DEFAULT_PROPOSAL_SETTINGS, type ProposalSettings } from '../../domain/catalog/settings.ts';
import type { EntityType } from '../../domain/pricing/terms.ts';

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

/** A product or portfolio as the routes show it: the record and when it was created and last saved. */
export type Dated<T> = T & { createdAt: string; updatedAt: string };
const dated = <T>(record: T, row: Record<string, unknown>): Dated<T> => ({
  ...record,
  createdAt: new Date(row.created_at as string).toISOString(),
  updatedAt: new Date(row.updated_at as string).toISOString(),
});

export async function findProduct(db: Knex, organizationId: string, productId: string): Promise<Dated<Product> | null> {
  const row = await db('catalog_products').where({ organization_id: organizationId, id: productId }).first();
  return row ? dated(productOf(row), row) : null;
}

export interface ProductFilter {
  kind?: ProductKind;
  entityType?: EntityType;
  enabled?: boolean;
}

/** An organization's products by key; a catalog is small (tens of products), so no paging. */
export async function listProducts(db: Knex, organizationId: string, filter: ProductFilter): Promise<Dated<Product>[]> {
  const query = db('catalog_products').where({ organization_id: organizationId }).orderBy('key');
  if (filter.kind) query.whereRaw("content->>'kind' = ?", [filter.kind]);
  if (filter.entityType) query.whereRaw("content->'entityTypes' \\? ?", [filter.entityType]);
  if (filter.enabled !== undefined) query.whereRaw("(content->>'enabled')::boolean = ?", [filter.enabled]);
  return (await query).map((row) => dated(productOf(row), row));
}

export async function findPortfolioDated(db: Knex, organizationId: string, portfolioId: string): Promise<Dated<Portfolio> | null> {
  const row = await db('catalog_portfolios').where({ organization_id: organizationId, id: portfolioId }).first();
  return row ? dated(portfolioOf(row), row) : null;
}

export async function listPortfolios(db: Knex, organizationId: string, filter: { enabled?: boolean }): Promise<Dated<Portfolio>[]> {
  const query = db('catalog_portfolios').where({ organization_id: organizationId }).orderByRaw("content->>'name'");
  if (filter.enabled !== undefined) query.whereRaw("(content->>'enabled')::boolean = ?", [filter.enabled]);
  return (await query).map((row) => dated(portfolioOf(row), row));
}

/** The organization's proposal settings; the defaults while it never saved any. */
export async function proposalSettings(db: Knex, organizationId: string): Promise<ProposalSettings> {
  const row = await db('catalog_proposal_settings').where({ organization_id: organizationId }).first();
  return row ? (row.settings as ProposalSettings) : DEFAULT_PROPOSAL_SETTINGS;
}
