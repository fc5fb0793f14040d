import type { Knex } from 'knex';
import { DEFAULT_MARKET_INDEXES } from '../../domain/pricing/market-index-decider.ts';
import { MARKET_INDEX_KEYS, type MarketIndexKey } from '../../domain/pricing/terms.ts';

export type MarketIndexSource = 'ORGANIZATION' | 'BCB_SGS' | 'DEFAULT';

export interface MarketIndexView {
  key: MarketIndexKey;
  percentYear: string;
  date: string;
  source: MarketIndexSource;
  updatedAt: string | null;
}

const isoDate = (value: unknown): string => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value));
const isoTime = (value: unknown): string => (value instanceof Date ? value.toISOString() : String(value));

/** Each index as the organization prices with it: its own value, else the reference, else the seeded default. */
export async function marketIndexesFor(db: Knex, organizationId: string): Promise<MarketIndexView[]> {
  const [own, reference] = await Promise.all([db('pricing_organization_indexes').where({ organization_id: organizationId }), db('pricing_reference_indexes')]);
  return MARKET_INDEX_KEYS.map((key) => {
    const row = own.find((r) => r.index_key === key) ?? reference.find((r) => r.index_key === key);
    if (!row) return { key, ...DEFAULT_MARKET_INDEXES[key], source: 'DEFAULT', updatedAt: null };
    return { key, percentYear: row.percent_year, date: isoDate(row.date), source: row.organization_id ? 'ORGANIZATION' : row.source, updatedAt: isoTime(row.updated_at) };
  });
}
