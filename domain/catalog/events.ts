import type { DomainEvent } from '../shared/decider.ts';
import type { PortfolioContent, ProductContent } from './product.ts';
import type { ProposalSettings } from './settings.ts';

/** `product-<id>` and `portfolio-<id>`, ids 24-hex. */
export const productStream = (productId: string) => `product-${productId}`;
export const portfolioStream = (portfolioId: string) => `portfolio-${portfolioId}`;
/** One stream per (organization, key): `<24 hex of a hash of both>`; its first writer owns the key. */
export const productKeyStream = (keyHash: string) => `productkey-${keyHash}`;
export const proposalSettingsStream = (organizationId: string) => `proposalsettings-${organizationId}`;

export const CatalogEventTypes = {
  productSaved: 'ProductSaved',
  portfolioSaved: 'PortfolioSaved',
  proposalSettingsSaved: 'ProposalSettingsSaved',
} as const;

/** Every save carries the whole content (not a diff), so one event reads alone. */
export type ProductSaved = DomainEvent<'ProductSaved', { productId: string; organizationId: string; version: number; content: ProductContent; userId: string; at: string }>;
export type PortfolioSaved = DomainEvent<'PortfolioSaved', { portfolioId: string; organizationId: string; content: PortfolioContent; userId: string; at: string }>;
export type ProposalSettingsSaved = DomainEvent<'ProposalSettingsSaved', { organizationId: string; settings: ProposalSettings; userId: string; at: string }>;
/** Not projected: it only serializes creators of the same key. */
export type ProductKeyClaimed = DomainEvent<'ProductKeyClaimed', { organizationId: string; key: string; productId: string; at: string }>;

export type CatalogEvent = ProductSaved | PortfolioSaved | ProposalSettingsSaved;
