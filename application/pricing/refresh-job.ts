import cron, { type ScheduledTask } from 'node-cron';
import { ConfigurationError } from '../../config/index.ts';
import { MARKET_INDEX_KEYS } from '../../domain/pricing/terms.ts';
import type { AppContext } from '../context.ts';
import type { Worker } from '../worker.ts';
import { publishMarketIndex } from './indexes.ts';
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
export class MarketIndexRefreshJob implements Worker {
  readonly name = 'market-index-refresh';
  readonly role = 'scheduler' as const;
  private task: ScheduledTask | undefined;
  private running: Promise<unknown> = Promise.resolve();

  async start(app: AppContext): Promise<void> {
    const { MARKET_INDEX_SOURCE: source, MARKET_INDEX_REFRESH_CRON: schedule, BCB_SGS_URL: url, SOURCE_TIMEOUT_MS: timeoutMs } = app.config;
    if (source === 'static') return;
    if (!cron.validate(schedule)) throw new ConfigurationError(`MARKET_INDEX_REFRESH_CRON "${schedule}" is not a cron expression; fix: e.g. "17 9 * * 1-5"`);
    const feed = new BcbSgsFeed(url, timeoutMs);
    this.task = cron.schedule(
      schedule,
      () => {
        this.running = refreshMarketIndexes(app, feed).then((published) => app.log.info({ job: this.name, published }, 'market indexes refreshed'));
        return this.running;
      },
      { name: this.name, noOverlap: true },
    );
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    await this.task?.destroy();
    await this.running;
  }
}
