import type { Principal } from '../../domain/identity/access.ts';
import { marketIndexDecider, organizationIndexesStream, REFERENCE_INDEXES_STREAM, type MarketIndexValue } from '../../domain/pricing/market-index-decider.ts';
import type { MarketIndexKey } from '../../domain/pricing/terms.ts';
import type { Position } from '../../platform/eventstore/port.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';

type App = Pick<AppContext, 'store' | 'clock'>;

/** An organization's own value of an index: it prices that organization's simulations only. */
export async function setMarketIndex(app: App, caller: Pick<Principal, 'organizationId' | 'userId'>, index: MarketIndexKey, value: MarketIndexValue): Promise<Position | null> {
  const { position } = await handleCommand(app.store, organizationIndexesStream(caller.organizationId), marketIndexDecider, {
    type: 'SetMarketIndex',
    organizationId: caller.organizationId,
    userId: caller.userId,
    index,
    ...value,
    at: app.clock.now().toISOString(),
  });
  return position;
}

/** A reference value (from Banco Central): every organization without its own value follows it. */
export async function publishMarketIndex(app: App, index: MarketIndexKey, value: MarketIndexValue): Promise<Position | null> {
  const { position } = await handleCommand(app.store, REFERENCE_INDEXES_STREAM, marketIndexDecider, {
    type: 'PublishMarketIndex',
    index,
    ...value,
    at: app.clock.now().toISOString(),
  });
  return position;
}
