import type { DomainEvent, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { PricingMessages } from './messages.ts';
import type { MarketIndexKey } from './terms.ts';

/**
 * Market indexes as a yearly percent with the date it refers to. Two layers: the reference
 * values (seeded defaults, then whatever the Banco Central refresh publishes) and each
 * organization's own values, which pin that index for that organization only.
 */
export interface MarketIndexValue {
  percentYear: string;
  date: string;
}

/**
 * Seeded values, BCB's as of 2025-10-31: Selic target 15.00% (Copom, 2025-06-18), CDI 14.90%
 * a year (SGS 4389), IPCA over 12 months 4.68% (SGS 13522, October 2025). A refresh replaces them.
 */
export const DEFAULT_MARKET_INDEXES: Record<MarketIndexKey, MarketIndexValue> = {
  CDI: { percentYear: '14.90', date: '2025-10-31' },
  SELIC: { percentYear: '15.00', date: '2025-10-31' },
  IPCA: { percentYear: '4.68', date: '2025-10-31' },
};

export const organizationIndexesStream = (organizationId: string) => `pricingindexes-${organizationId}`;
/** The reference values are one stream for the whole service (no tenant owns them). */
export const REFERENCE_INDEXES_STREAM = 'pricingreference-000000000000000000000000';

export const MarketIndexEventTypes = { set: 'MarketIndexSet', published: 'MarketIndexPublished' } as const;

export type MarketIndexSet = DomainEvent<'MarketIndexSet', { organizationId: string; index: MarketIndexKey; userId: string; at: string } & MarketIndexValue>;
export type MarketIndexPublished = DomainEvent<'MarketIndexPublished', { index: MarketIndexKey; source: 'BCB_SGS'; at: string } & MarketIndexValue>;
export type MarketIndexEvent = MarketIndexSet | MarketIndexPublished;

export type MarketIndexCommand =
  | ({ type: 'SetMarketIndex'; organizationId: string; index: MarketIndexKey; userId: string; at: string } & MarketIndexValue)
  | ({ type: 'PublishMarketIndex'; index: MarketIndexKey; at: string } & MarketIndexValue);

export type MarketIndexState = Partial<Record<MarketIndexKey, MarketIndexValue>>;

function same(state: MarketIndexState, index: MarketIndexKey, value: MarketIndexValue): boolean {
  const current = state[index];
  return !!current && Number(current.percentYear) === Number(value.percentYear) && current.date === value.date;
}

/** Setting the value an index already has appends nothing; a date after today is refused. */
export const marketIndexDecider: Decider<MarketIndexCommand, MarketIndexEvent, MarketIndexState> = {
  initialState: () => ({}),
  evolve: (state, event) => ({ ...state, [event.data.index]: { percentYear: event.data.percentYear, date: event.data.date } }),
  decide(command, state) {
    if (command.date > command.at.slice(0, 10)) throw new DomainError('invalid', PricingMessages.indexDateInFuture);
    const value = { percentYear: command.percentYear, date: command.date };
    if (same(state, command.index, value)) return [];
    if (command.type === 'PublishMarketIndex') return [{ type: 'MarketIndexPublished', data: { index: command.index, ...value, source: 'BCB_SGS', at: command.at } }];
    const { organizationId, index, userId, at } = command;
    return [{ type: 'MarketIndexSet', data: { organizationId, index, ...value, userId, at } }];
  },
};
