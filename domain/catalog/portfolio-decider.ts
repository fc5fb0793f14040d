import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { sameContent } from '../shared/canonical.ts';
import type { PortfolioSaved } from './events.ts';
import { CatalogMessages } from './messages.ts';
import type { Portfolio, PortfolioContent } from './product.ts';

export type PortfolioCommand = {
  type: 'CreatePortfolio' | 'UpdatePortfolio';
  portfolioId: string;
  organizationId: string;
  userId: string;
  content: PortfolioContent;
  at: string;
};

export interface PortfolioState {
  portfolio: Portfolio | null;
  createdAt: string | null;
  updatedAt: string | null;
}

/** A portfolio groups proposals for reporting; disabling it (enabled false) keeps its proposals. */
export const portfolioDecider: Decider<PortfolioCommand, PortfolioSaved, PortfolioState> = {
  initialState: () => ({ portfolio: null, createdAt: null, updatedAt: null }),

  evolve(state, event) {
    const { portfolioId, organizationId, content, at } = event.data;
    return { portfolio: { ...content, portfolioId, organizationId }, createdAt: state.createdAt ?? at, updatedAt: at };
  },

  decide(command, state) {
    const { portfolioId, organizationId, userId, content, at } = command;
    const saved: PortfolioSaved[] = [{ type: 'PortfolioSaved', data: { portfolioId, organizationId, content, userId, at } }];
    if (command.type === 'CreatePortfolio') {
      // Ids are fresh ObjectIds: a second create on one stream is a retried request, refused.
      if (state.portfolio) throw new DomainError('conflict', CatalogMessages.recordExists);
      return saved;
    }
    const current = state.portfolio;
    if (!current || current.organizationId !== organizationId) throw new DomainError('not_found', CatalogMessages.portfolioNotFound);
    const { portfolioId: _id, organizationId: _org, ...currentContent } = current;
    return sameContent(content, currentContent) ? [] : saved;
  },
};
