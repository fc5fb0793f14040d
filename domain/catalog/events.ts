import type { DomainEvent } from '../shared/decider.ts';
import type { PortfolioContent, ProductContent } from './product.ts';

/** `product-<id>` and `portfolio-<id>`, ids 24-hex. */
export const productStream = (productId: string) => `product-${productId}`;
export const portfolioStream = (portfolioId: string) => `portfolio-${portfolioId}`;

export const CatalogEventTypes = {
  productSaved: 'ProductSaved',
  portfolioSaved: 'PortfolioSaved',
} as const;

/** Every save carries the whole content (not a diff), so one event reads alone. */
export type ProductSaved = DomainEvent<
  'ProductSaved',
  { productId: string; organizationId: string; version: number; content: ProductContent; userId: string; at: string }
>;
export type PortfolioSaved = DomainEvent<
  'PortfolioSaved',
  { portfolioId: string; organizationId: string; content: PortfolioContent; userId: string; at: string }
>;

export type CatalogEvent = ProductSaved | PortfolioSaved;
