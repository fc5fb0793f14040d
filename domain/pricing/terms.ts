/**
 * The words pricing shares with the catalog and the offers: how a product or an offer prices
 * credit. Money is integer cents; the spec's rates are integer bps per year, and a decimal rate
 * with its period (percent as a decimal string) says what bps cannot (2% a month exactly).
 */
export type AmortizationModel = 'PRICE' | 'SAC';
export const AMORTIZATION_MODELS: readonly AmortizationModel[] = ['PRICE', 'SAC'];

export type EntityType = 'COMPANY' | 'PERSON';
export const ENTITY_TYPES: readonly EntityType[] = ['COMPANY', 'PERSON'];

export type MarketIndexKey = 'CDI' | 'SELIC' | 'IPCA';
export const MARKET_INDEX_KEYS: readonly MarketIndexKey[] = ['CDI', 'SELIC', 'IPCA'];

export type RatePeriod = 'MONTH' | 'YEAR';

/** A rate in percent as a decimal string, e.g. `{ value: "1.99", period: "MONTH" }`. */
export interface DecimalRate {
  value: string;
  period: RatePeriod;
}

/** A fixed rate, or a market index plus a spread. `rateBpsYear`/`spreadBpsYear` are the spec's fields. */
export type ProductRate = { kind: 'FIXED'; rateBpsYear: number; rate?: DecimalRate } | { kind: 'INDEXED'; index: MarketIndexKey; spreadBpsYear: number; spread?: DecimalRate };

/** A fee charged on release: a fixed amount, a share of the amount, or both. */
export interface Fee {
  key: string;
  name: string;
  amountCents?: number;
  percentBps?: number;
  /** Added to the financed amount rather than paid upfront. */
  financed: boolean;
}

export interface ProductPricing {
  model: AmortizationModel;
  rate: ProductRate;
  fees: Fee[];
  iof: { applies: boolean; financed: boolean };
  /** Whether a due date on a weekend or national holiday moves to the next business day. */
  moveDueDatesToBusinessDay: boolean;
}
