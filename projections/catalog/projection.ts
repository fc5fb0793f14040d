import type { Knex } from 'knex';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { CatalogEventTypes, type CatalogEvent } from '../../domain/catalog/events.ts';
import type { Projection } from '../../platform/projections/projection.ts';

export const CATALOG_PROJECTION = 'catalog';

async function apply(event: CatalogEvent, trx: Knex.Transaction): Promise<void> {
  switch (event.type) {
    case 'ProductSaved': {
      const { productId, organizationId, version, content, at } = event.data;
      await trx('catalog_products')
        .insert({ id: productId, organization_id: organizationId, key: content.key, version, content: JSON.stringify(content), created_at: at, updated_at: at })
        .onConflict('id')
        .merge(['key', 'version', 'content', 'updated_at']);
      return;
    }
    case 'PortfolioSaved': {
      const { portfolioId, organizationId, content, at } = event.data;
      await trx('catalog_portfolios')
        .insert({ id: portfolioId, organization_id: organizationId, content: JSON.stringify(content), created_at: at, updated_at: at })
        .onConflict('id')
        .merge(['content', 'updated_at']);
      return;
    }
    case 'ProposalSettingsSaved': {
      const { organizationId, settings, at } = event.data;
      await trx('catalog_proposal_settings')
        .insert({ organization_id: organizationId, settings: JSON.stringify(settings), updated_at: at })
        .onConflict('organization_id')
        .merge(['settings', 'updated_at']);
    }
  }
}

/** Products (latest version), portfolios and proposal settings of each organization. Upserts: a replay changes nothing. */
export const catalogProjection: Projection = {
  name: CATALOG_PROJECTION,
  eventTypes: Object.values(CatalogEventTypes),
  tables: ['catalog_products', 'catalog_portfolios', 'catalog_proposal_settings'],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
    for (const event of events) await apply({ type: event.type, data: event.data } as unknown as CatalogEvent, trx);
  },
};
