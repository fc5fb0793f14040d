import { sendIndicativeOffer } from '../../application/proposal/commands.ts';
import { PROPOSAL_PROJECTION } from '../../projections/proposal/projection.ts';
import type { TestApp } from './app.ts';
import { seedProduct } from './catalog.ts';
import type { TestTenant } from './identity.ts';

/** An indicative offer issued on a new proposal (no contact: nothing is sent), readable at once; its link token opens /oferta/{token}. */
export async function issuedOffer(app: TestApp, tenant: TestTenant): Promise<{ proposalId: string; offerId: string; linkToken: string }> {
  await seedProduct(app, tenant.organizationId);
  const proposal = await app.call('POST', '/v1/proposals', {
    token: tenant.token,
    body: { document: '12345678909', name: 'Maria Souza', productKey: 'credito-pessoal', requestedAmountCents: 500_000 },
  });
  if (proposal.status !== 201) throw new Error(`proposal: ${JSON.stringify(proposal.body)}`);
  const offer = { minAmountCents: 200_000, maxAmountCents: 800_000, minTermMonths: 6, maxTermMonths: 24, rateBpsYear: 2682, model: 'PRICE' as const, validUntil: '2999-01-01T00:00:00.000Z' };
  const result = await sendIndicativeOffer(app.app, { organizationId: tenant.organizationId, proposalId: proposal.body.id, executionId: 'e0000000000000000000000d', offer });
  await app.app.readYourWrites([PROPOSAL_PROJECTION], result.position);
  return { proposalId: proposal.body.id, offerId: result.offerId, linkToken: result.linkToken };
}
