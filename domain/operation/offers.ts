import type { Product } from '../catalog/product.ts';
import type { ProposalCreated } from '../proposal/events.ts';
import type { PipelineStep } from './pipeline.ts';

const DAY_MS = 86_400_000;

export interface OfferRate {
  rateBpsYear: number;
  rate: { value: string; period: 'MONTH' | 'YEAR' } | null;
  model: 'PRICE' | 'SAC';
}

/**
 * The rate an offer carries: the product's fixed rate. An indexed rate needs the index's value,
 * which no module keeps yet; a product without pricing (KYC) lends nothing. Either gives null,
 * and the execution fails with the reason instead of offering a made-up rate.
 */
export function productRate(product: Product | null): OfferRate | null {
  const pricing = product?.pricing;
  if (!pricing || pricing.rate.kind !== 'FIXED') return null;
  return { rateBpsYear: pricing.rate.rateBpsYear, rate: pricing.rate.rate ?? null, model: pricing.model };
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
