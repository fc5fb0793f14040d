import type { MarketIndexValue } from '../../domain/pricing/market-index-decider.ts';
import type { MarketIndexKey } from '../../domain/pricing/terms.ts';

/** Where reference market indexes come from. */
export interface MarketIndexFeed {
  latest(index: MarketIndexKey): Promise<MarketIndexValue>;
}

/**
 * Banco Central's SGS series, each already a yearly percent: 4389 CDI annualized (base 252),
 * 432 Selic target, 13522 IPCA over 12 months.
 */
export const SGS_SERIES: Record<MarketIndexKey, number> = { CDI: 4389, SELIC: 432, IPCA: 13522 };

export class SgsFeedError extends Error {
  override name = 'SgsFeedError';
}

/** GET /dados/serie/bcdata.sgs.{code}/dados/ultimos/1?formato=json -> [{"data":"dd/mm/aaaa","valor":"14.90"}]. */
export class BcbSgsFeed implements MarketIndexFeed {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async latest(index: MarketIndexKey): Promise<MarketIndexValue> {
    const url = `${this.baseUrl.replace(/(?<!\/)\/+$/, '')}/dados/serie/bcdata.sgs.${SGS_SERIES[index]}/dados/ultimos/1?formato=json`;
    const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(this.timeoutMs) });
    if (!response.ok) throw new SgsFeedError(`SGS ${index}: HTTP ${response.status}`);
    const body = (await response.json()) as unknown;
    const row = Array.isArray(body) ? (body.at(-1) as { data?: unknown; valor?: unknown } | undefined) : undefined;
    const date = typeof row?.data === 'string' ? /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(row.data) : null;
    const value = typeof row?.valor === 'string' ? row.valor.trim().replace(',', '.') : '';
    if (!date || !/^\d{1,4}(?:\.\d{1,8})?$/.test(value)) throw new SgsFeedError(`SGS ${index}: unexpected reply ${JSON.stringify(body).slice(0, 200)}`);
    return { percentYear: value, date: `${date[3]}-${date[2]}-${date[1]}` };
  }
}
