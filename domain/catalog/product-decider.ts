import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import type { ProductKeyClaimed, ProductSaved } from './events.ts';
import { CatalogMessages } from './messages.ts';
import type { Product, ProductContent } from './product.ts';
import { validateProductContent } from './validate.ts';
import { sameContent } from '../shared/canonical.ts';

export type ProductCommand =
  | { type: 'CreateProduct'; productId: string; organizationId: string; userId: string; content: ProductContent; at: string }
  | { type: 'UpdateProduct'; productId: string; organizationId: string; userId: string; content: ProductContent; at: string };

export interface ProductState {
  product: Product | null;
  createdAt: string | null;
  updatedAt: string | null;
}

/** Versions of a product: each save is a whole new version; enabling or disabling is a save too. */
export const productDecider: Decider<ProductCommand, ProductSaved, ProductState> = {
  initialState: () => ({ product: null, createdAt: null, updatedAt: null }),

  evolve(state, event) {
    const { productId, organizationId, version, content, at } = event.data;
    return { product: { ...content, productId, organizationId, version }, createdAt: state.createdAt ?? at, updatedAt: at };
  },

  decide(command, state) {
    const { productId, organizationId, userId, content, at } = command;
    if (command.type === 'CreateProduct') {
      // Ids are fresh ObjectIds: a second create on one stream is a retried request, refused.
      if (state.product) throw new DomainError('conflict', CatalogMessages.recordExists);
      validateProductContent(content);
      return [{ type: 'ProductSaved', data: { productId, organizationId, version: 1, content, userId, at } }];
    }
    const current = state.product;
    // Another organization's product is answered like an absent one.
    if (!current || current.organizationId !== organizationId) throw new DomainError('not_found', CatalogMessages.productNotFound);
    // Proposals name their product by key: it cannot move under them.
    if (content.key !== current.key) throw new DomainError('invalid', CatalogMessages.productKeyChange);
    validateProductContent(content);
    const { productId: _id, organizationId: _org, version, ...currentContent } = current;
    if (sameContent(content, currentContent)) return [];
    return [{ type: 'ProductSaved', data: { productId, organizationId, version: version + 1, content, userId, at } }];
  },
};

export type ClaimProductKey = {
  organizationId: string;
  key: string;
  productId: string;
  at: string;
  /** Whether the product that claimed the key before was ever written (the caller reads its stream). */
  claimantExists: boolean;
};

/** How long a claim whose product was never written blocks its key (a crash between the two appends). */
export const ORPHAN_CLAIM_MS = 60_000;

/**
 * Who owns a product key in an organization. Two creators of one key race on this stream's first
 * append; the loser is refused. A claim older than ORPHAN_CLAIM_MS whose product never appeared
 * is given to the next creator.
 */
export const productKeyDecider: Decider<ClaimProductKey, ProductKeyClaimed, { productId: string | null; at: string | null }> = {
  initialState: () => ({ productId: null, at: null }),
  evolve: (_state, event) => ({ productId: event.data.productId, at: event.data.at }),
  decide(command, state) {
    if (state.productId === command.productId) return [];
    if (state.productId !== null) {
      const orphan = !command.claimantExists && Date.parse(command.at) - Date.parse(state.at!) > ORPHAN_CLAIM_MS;
      if (!orphan) throw new DomainError('conflict', CatalogMessages.productKeyTaken);
    }
    const { organizationId, key, productId, at } = command;
    return [{ type: 'ProductKeyClaimed', data: { organizationId, key, productId, at } }];
  },
};
