import type { EntityType, ProductPricing } from '../pricing/terms.ts';

export type ProductKind = 'KYC' | 'FINANCING' | 'INSTALLMENT_SALE';
export const PRODUCT_KINDS: readonly ProductKind[] = ['KYC', 'FINANCING', 'INSTALLMENT_SALE'];

/** What a lender sells: who may ask for it, within which limits, at which price, run by which pipeline. */
export interface ProductContent {
  key: string;
  name: string;
  kind: ProductKind;
  entityTypes: EntityType[];
  enabled: boolean;
  /** A product with a fixed amount (a KYC fee, a fixed-ticket sale) ignores the requested amount. */
  fixedAmountCents: number | null;
  minAmountCents: number | null;
  maxAmountCents: number | null;
  minTermMonths: number | null;
  maxTermMonths: number | null;
  /** Null for products that lend nothing (KYC). */
  pricing: ProductPricing | null;
  /** The pipeline (operation) a proposal of this product runs when the caller names none. */
  defaultOperationId: string | null;
  /** Collection templates the product asks the customer for. */
  collectionTemplateSlugs: string[];
}

export interface Product extends ProductContent {
  productId: string;
  organizationId: string;
  version: number;
}

export interface PortfolioContent {
  name: string;
  description: string | null;
  enabled: boolean;
}

export interface Portfolio extends PortfolioContent {
  portfolioId: string;
  organizationId: string;
}
