import { createHash } from 'node:crypto';
import { portfolioStream, productKeyStream, productStream, proposalSettingsStream } from '../../domain/catalog/events.ts';
import { portfolioDecider, type PortfolioState } from '../../domain/catalog/portfolio-decider.ts';
import { productDecider, productKeyDecider, type ProductState } from '../../domain/catalog/product-decider.ts';
import type { PortfolioContent, ProductContent } from '../../domain/catalog/product.ts';
import { proposalSettingsDecider } from '../../domain/catalog/settings-decider.ts';
import type { ProposalSettings } from '../../domain/catalog/settings.ts';
import { validateProductContent } from '../../domain/catalog/validate.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { handleCommand, loadState, type Written } from '../command-handler.ts';
import type { AppContext } from '../context.ts';

type Caller = Pick<Principal, 'organizationId' | 'userId'>;
type App = Pick<AppContext, 'store' | 'ids' | 'clock'>;

/** The key-claim stream of (organization, key): 24 hex of a SHA-256, so any key fits a stream name. */
function keyHash(organizationId: string, key: string): string {
  return createHash('sha256').update(`${organizationId}\n${key}`).digest('hex').slice(0, 24);
}

/**
 * A new product: validated first (a refused product claims no key), then its key claimed in the
 * organization, then version 1 appended. The claim is what makes two concurrent creators of one
 * key end with one product and one 409.
 */
export async function createProduct(app: App, caller: Caller, content: ProductContent): Promise<Written<ProductState>> {
  validateProductContent(content);
  const productId = app.ids.objectId();
  const at = app.clock.now().toISOString();
  const claims = productKeyStream(keyHash(caller.organizationId, content.key));
  const { state: claim } = await loadState(app.store, claims, productKeyDecider);
  const claimantExists = claim.productId !== null && (await app.store.readStream(productStream(claim.productId))).length > 0;
  await handleCommand(app.store, claims, productKeyDecider, { organizationId: caller.organizationId, key: content.key, productId, at, claimantExists });
  const { organizationId, userId } = caller;
  return handleCommand(app.store, productStream(productId), productDecider, { type: 'CreateProduct', productId, organizationId, userId, content, at });
}

/** A new version with the whole content; the key stays (unchanged content makes no version). */
export async function updateProduct(app: App, caller: Caller, productId: string, content: ProductContent): Promise<Written<ProductState>> {
  const { organizationId, userId } = caller;
  const at = app.clock.now().toISOString();
  return handleCommand(app.store, productStream(productId), productDecider, { type: 'UpdateProduct', productId, organizationId, userId, content, at });
}

export async function createPortfolio(app: App, caller: Caller, content: PortfolioContent): Promise<Written<PortfolioState>> {
  const portfolioId = app.ids.objectId();
  return savePortfolio(app, caller, 'CreatePortfolio', portfolioId, content);
}

export async function updatePortfolio(app: App, caller: Caller, portfolioId: string, content: PortfolioContent): Promise<Written<PortfolioState>> {
  return savePortfolio(app, caller, 'UpdatePortfolio', portfolioId, content);
}

function savePortfolio(app: App, caller: Caller, type: 'CreatePortfolio' | 'UpdatePortfolio', portfolioId: string, content: PortfolioContent) {
  const { organizationId, userId } = caller;
  const at = app.clock.now().toISOString();
  return handleCommand(app.store, portfolioStream(portfolioId), portfolioDecider, { type, portfolioId, organizationId, userId, content, at });
}

/** Replace the organization's proposal settings; the default portfolio is read from its own stream. */
export async function saveProposalSettings(app: App, caller: Caller, settings: ProposalSettings): Promise<Written<ProposalSettings>> {
  const { organizationId, userId } = caller;
  let defaultPortfolioUsable = false;
  if (settings.defaultPortfolioId !== null) {
    const { portfolio } = (await loadState(app.store, portfolioStream(settings.defaultPortfolioId), portfolioDecider)).state;
    defaultPortfolioUsable = portfolio !== null && portfolio.organizationId === organizationId && portfolio.enabled;
  }
  const at = app.clock.now().toISOString();
  return handleCommand(app.store, proposalSettingsStream(organizationId), proposalSettingsDecider, { organizationId, userId, settings, at, defaultPortfolioUsable });
}
