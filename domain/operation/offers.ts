import type { Product } from '../catalog/product.ts';
import { monthlyRateOf } from '../pricing/simulate.ts';
import { fractionToBps, yearlyFromMonthly } from '../pricing/rates.ts';
import type { MarketIndexKey } from '../pricing/terms.ts';
import type { ProposalCreated } from '../proposal/events.ts';
import type { PipelineStep } from './pipeline.ts';

const DAY_MS = 86_400_000;

export interface OfferRate {
  rateBpsYear: number;
  rate: { value: string; period: 'MONTH' | 'YEAR' } | null;
  model: 'PRICE' | 'SAC';
}

/**
 * The rate an offer carries: the product's fixed rate, or its index's value now (`indexPercentYear`,
 * the organization's) compounded with the spread, so the customer is offered one all-in yearly
 * rate that does not move after the offer. A product without pricing (KYC) lends nothing, and an
 * index without a value cannot be priced: both give null, and the execution fails with the reason
 * instead of offering a made-up rate.
 */
export function productRate(product: Product | null, indexPercentYear: (key: MarketIndexKey) => string | undefined): OfferRate | null {
  const pricing = product?.pricing;
  if (!pricing) return null;
  const { rate, model } = pricing;
  if (rate.kind === 'FIXED') return { rateBpsYear: rate.rateBpsYear, rate: rate.rate ?? null, model };
  const index = indexPercentYear(rate.index);
  if (index === undefined) return null;
  const yearly = yearlyFromMonthly(monthlyRateOf({ kind: 'INDEXED', index: rate.index, indexPercentYear: index, spreadBpsYear: rate.spreadBpsYear, spread: rate.spread }));
  return { rateBpsYear: fractionToBps(yearly), rate: { value: yearly.times(100).toDecimalPlaces(8).toFixed(), period: 'YEAR' }, model };
}

const clamp = (value: number, min: number | null, max: number | null) => Math.min(max ?? value, Math.max(min ?? value, value));

/** The indicative offer of a PRE_APPROVAL step: a share of the requested amount, within the product's limits. */
export function indicativeTerms(step: Extract<PipelineStep, { kind: 'PRE_APPROVAL' }>, proposal: ProposalCreated['data'], product: Product, rate: OfferRate, at: string) {
  const requested = proposal.requestedAmountCents ?? proposal.fixedAmountCents ?? product.maxAmountCents ?? 0;
  const maxAmountCents = clamp(Math.floor((requested * step.maxAmountPercent) / 100), product.minAmountCents, product.maxAmountCents);
  const minAmountCents = Math.min(maxAmountCents, clamp(Math.ceil((requested * step.minAmountPercent) / 100), product.minAmountCents, product.maxAmountCents));
  const maxTermMonths = clamp(step.maxTermMonths, product.minTermMonths, product.maxTermMonths);
  const minTermMonths = Math.min(maxTermMonths, clamp(step.minTermMonths, product.minTermMonths, product.maxTermMonths));
  return { minAmountCents, maxAmountCents, minTermMonths, maxTermMonths, ...rate, validUntil: validUntil(at, step.validDays) };
}

export const validUntil = (at: string, days: number) => new Date(Date.parse(at) + days * DAY_MS).toISOString();
