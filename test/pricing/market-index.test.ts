import { suite } from 'uvu';
import { marketIndexDecider, type MarketIndexEvent } from '../../domain/pricing/market-index-decider.ts';
import { PricingMessages } from '../../domain/pricing/messages.ts';
import { given } from '../support/decider.ts';

const test = suite('pricing: market index decider');
const org = 'a0000000000000000000000a';
const at = '2026-11-23T10:00:00.000Z';
const set = (percentYear: string, date = '2026-11-20') => ({ type: 'SetMarketIndex' as const, organizationId: org, userId: 'u', index: 'CDI' as const, percentYear, date, at });
const setEvent = (percentYear: string, date = '2026-11-20'): MarketIndexEvent => ({ type: 'MarketIndexSet', data: { organizationId: org, userId: 'u', index: 'CDI', percentYear, date, at } });

test('an organization sets an index: MarketIndexSet with its organizationId', () => {
  given(marketIndexDecider)
    .when(set('14.90'))
    .then([setEvent('14.90')]);
});

test('the same value and date again appends nothing (14.9 equals 14.90)', () => {
  given(marketIndexDecider, [setEvent('14.90')])
    .when(set('14.9'))
    .then([]);
});

test('a new value or date is a new event', () => {
  given(marketIndexDecider, [setEvent('14.90')])
    .when(set('14.65'))
    .then([setEvent('14.65')]);
  given(marketIndexDecider, [setEvent('14.90')])
    .when(set('14.90', '2026-11-23'))
    .then([setEvent('14.90', '2026-11-23')]);
});

test('a date after today is refused', () => {
  given(marketIndexDecider).when(set('14.90', '2026-11-24')).thenError('invalid', PricingMessages.indexDateInFuture);
});

test('Banco Central publishes a reference value: MarketIndexPublished, no organization', () => {
  given(marketIndexDecider)
    .when({ type: 'PublishMarketIndex', index: 'SELIC', percentYear: '15.00', date: '2026-11-20', at })
    .then([{ type: 'MarketIndexPublished', data: { index: 'SELIC', percentYear: '15.00', date: '2026-11-20', source: 'BCB_SGS', at } }]);
});

test.run();
