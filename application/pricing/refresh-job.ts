import { MARKET_INDEX_KEYS } from '../../domain/pricing/terms.ts';
import type { AppContext } from '../context.ts';
import { ScheduledPass } from '../scheduled-pass.ts';
import { publishMarketIndex } from './commands.ts';
import { BcbSgsFeed, type MarketIndexFeed } from './sgs.ts';

/** Fetch every index and publish those that changed; one failing index does not stop the others. */
export async function refreshMarketIndexes(app: Pick<AppContext, 'store' | 'clock' | 'log'>, feed: MarketIndexFeed): Promise<number> {
  let published = 0;
  for (const index of MARKET_INDEX_KEYS) {
    try {
      if (await publishMarketIndex(app, index, await feed.latest(index))) published++;
    } catch (error) {
      app.log.warn({ err: error, index }, 'market index refresh failed; the reference value stays until the next run');
    }
  }
  return published;
}

/**
 * The scheduler role's refresh of the reference indexes from Banco Central, when
 * MARKET_INDEX_SOURCE=bcb-sgs. Several schedulers may run it: publishing an unchanged value
 * appends nothing, and two equal publications conflict and retry into a no-op.
 */
export class MarketIndexRefreshJob extends ScheduledPass {
  constructor() {
    super(
      'market-index-refresh',
      (app) => (app.config.MARKET_INDEX_SOURCE === 'static' ? null : app.config.MARKET_INDEX_REFRESH_CRON),
      async (app) => ({ published: await refreshMarketIndexes(app, new BcbSgsFeed(app.config.BCB_SGS_URL, app.config.SOURCE_TIMEOUT_MS)) }),
      'market indexes refreshed',
      { exclusive: false },
    );
  }
}
