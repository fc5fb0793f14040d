import type { AppContext } from '../context.ts';
import { ScheduledPass } from '../scheduled-pass.ts';
import { expireOffer } from './commands.ts';

/** Offers expired per pass: a backlog (a job that was down for a while) drains over a few passes. */
const BATCH = 200;

/**
 * Expire every indicative offer whose deadline passed without a choice, as of the app's clock
 * (a test moves it). Reads the waiting offers from the facts row; the decider decides nothing
 * for an offer chosen, expired or replaced meanwhile, so a repeated or concurrent pass is harmless.
 */
export async function expireOffers(app: Pick<AppContext, 'db' | 'store' | 'ids' | 'clock'>): Promise<number> {
  const now = app.clock.now();
  const due: Array<{ id: string; organization_id: string; waiting_offer_id: string }> = await app
    .db('proposal_facts')
    .select('id', 'organization_id', 'waiting_offer_id')
    .where('waiting_offer_until', '<', now)
    .orderBy('waiting_offer_until')
    .limit(BATCH);
  let expired = 0;
  for (const row of due) {
    const { position } = await expireOffer(app, { organizationId: row.organization_id, proposalId: row.id, offerId: row.waiting_offer_id, at: now.toISOString() });
    if (position) expired++;
  }
  return expired;
}

/**
 * The scheduler role's expiry of indicative offers (every minute by default), one scheduler at a
 * time; the offers it reads are those the proposal projection lists as waiting, so a restart
 * simply finds the rest on the next pass.
 */
export class OfferExpiryJob extends ScheduledPass {
  constructor(schedule = '* * * * *') {
    super('proposal-offer-expiry', () => schedule, expireOffers, 'indicative offers expired');
  }
}
