import type { Knex } from 'knex';
import { MarketIndexEventTypes, type MarketIndexEvent } from '../../domain/pricing/market-index-decider.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { Projection } from '../../platform/projections/projection.ts';

export const PRICING_PROJECTION = 'pricing';

async function apply(event: MarketIndexEvent, trx: Knex.Transaction): Promise<void> {
  if (event.type === 'MarketIndexPublished') {
    const { index, percentYear, date, source, at } = event.data;
    await trx('pricing_reference_indexes').insert({ index_key: index, percent_year: percentYear, date, source, updated_at: at }).onConflict('index_key').merge();
    return;
  }
  const { organizationId, index, percentYear, date, userId, at } = event.data;
  await trx('pricing_organization_indexes')
    .insert({ organization_id: organizationId, index_key: index, percent_year: percentYear, date, updated_by: userId, updated_at: at })
    .onConflict(['organization_id', 'index_key'])
    .merge();
}

/** Market indexes: the reference values and each organization's own. Upserts: a replay changes nothing. */
export const pricingProjection: Projection = {
  name: PRICING_PROJECTION,
  eventTypes: Object.values(MarketIndexEventTypes),
  tables: ['pricing_reference_indexes', 'pricing_organization_indexes'],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
    for (const event of events) await apply({ type: event.type, data: event.data } as unknown as MarketIndexEvent, trx);
  },
};
