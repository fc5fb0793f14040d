import cron, { type ScheduledTask } from 'node-cron';
import { AdvisoryLocks, LockNamespace } from '../../platform/database/advisory-lock.ts';
import type { AppContext } from '../context.ts';
import type { Worker } from '../worker.ts';
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
 * The scheduler role's expiry of indicative offers (every minute by default). One scheduler
 * runs a pass at a time (advisory lock, released after the pass); the offers it reads are those
 * the proposal projection lists as waiting, so a restart simply finds the rest on the next pass.
 */
export class OfferExpiryJob implements Worker {
  readonly name = 'proposal-offer-expiry';
  readonly role = 'scheduler' as const;
  private task: ScheduledTask | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly schedule = '* * * * *') {}

  async start(app: AppContext): Promise<void> {
    const log = app.log.child({ job: this.name });
    this.task = cron.schedule(
      this.schedule,
      () => {
        this.running = this.pass(app)
          .then((expired) => expired > 0 && log.info({ expired }, 'indicative offers expired'))
          .catch((error) => log.error({ err: error }, 'offer expiry failed; the next pass tries again'));
        return this.running;
      },
      { name: this.name, noOverlap: true },
    );
  }

  private async pass(app: AppContext): Promise<number> {
    const locks = new AdvisoryLocks(app.db);
    try {
      if (!(await locks.tryLock(LockNamespace.processManager, this.name))) return 0;
      return await expireOffers(app);
    } finally {
      await locks.close();
    }
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    await this.task?.destroy();
    await this.running;
  }
}
