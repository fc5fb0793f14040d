import type { IndicativeTerms } from '../../domain/proposal/events.ts';
import type { OfferState, ProposalState } from '../../domain/proposal/state.ts';
import { findOfferLink } from '../../projections/proposal/queries.ts';
import type { AppContext } from '../context.ts';
import { hashLinkToken } from '../../platform/link-token.ts';
import { loadProposal } from './commands.ts';

export interface OpenedLink {
  state: ProposalState;
  offer: OfferState & { terms: IndicativeTerms };
}

/**
 * The indicative offer a customer's link opens, or null. The index finds the proposal by the
 * token's hash; the proposal's own stream decides, so a link replaced a moment ago (the index
 * not yet caught up) opens nothing either.
 */
export async function openOfferLink(app: Pick<AppContext, 'db' | 'store'>, token: string): Promise<OpenedLink | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const hash = hashLinkToken(token);
  const link = await findOfferLink(app.db, hash);
  if (!link) return null;
  const state = await loadProposal(app, link.proposalId);
  const offer = state.offers.find((o) => o.offerId === link.offerId);
  if (!offer || offer.kind !== 'INDICATIVE' || offer.linkHash !== hash) return null;
  return { state, offer: offer as OpenedLink['offer'] };
}
