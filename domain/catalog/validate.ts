import type { DecimalRate, ProductPricing } from '../pricing/terms.ts';
import { DomainError } from '../shared/errors.ts';
import { CatalogMessages as M } from './messages.ts';
import type { ProductContent } from './product.ts';
import { bpsYearOf, MAX_RATE_BPS_YEAR } from './rates.ts';

export const PRODUCT_KEY_PATTERN = /^[a-z0-9][a-z0-9-_]{1,59}$/;

const refuse = (message: string): never => {
  throw new DomainError('invalid', message);
};
const repeats = (values: readonly string[]) => new Set(values).size !== values.length;

function validateRate(bpsYear: number, decimal: DecimalRate | undefined): void {
  if (bpsYear < 0 || bpsYear > MAX_RATE_BPS_YEAR) refuse(M.rateOutOfBounds);
  if (!decimal) return;
  const fromDecimal = bpsYearOf(decimal);
  if (fromDecimal > MAX_RATE_BPS_YEAR) refuse(M.rateOutOfBounds);
  // One bps of slack: a caller who rounded the conversion another way still agrees with us.
  if (Math.abs(fromDecimal - bpsYear) > 1) refuse(M.rateMismatch);
}

function validatePricing(pricing: ProductPricing, maxAmountCents: number | null): void {
  const { rate } = pricing;
  if (rate.kind === 'FIXED') validateRate(rate.rateBpsYear, rate.rate);
  else validateRate(rate.spreadBpsYear, rate.spread);
  for (const fee of pricing.fees) {
    if (fee.amountCents === undefined && fee.percentBps === undefined) refuse(M.feeValueRequired);
    if (fee.amountCents !== undefined && maxAmountCents !== null && fee.amountCents >= maxAmountCents) refuse(M.feeTooLarge);
  }
  if (repeats(pricing.fees.map((f) => f.key))) refuse(M.feeKeysRepeated);
}

/**
 * Rules that cross fields (the HTTP schema already checked each field alone): a product must be
 * sellable as described, so a proposal of it never meets a limit that contradicts another.
 */
export function validateProductContent(content: ProductContent): void {
  if (!PRODUCT_KEY_PATTERN.test(content.key)) refuse(M.productKeyFormat);
  if (content.entityTypes.length === 0) refuse(M.entityTypesRequired);
  if (repeats(content.entityTypes)) refuse(M.entityTypesRepeated);
  if (repeats(content.collectionTemplateSlugs)) refuse(M.templatesRepeated);
  const { fixedAmountCents: fixed, minAmountCents: min, maxAmountCents: max, minTermMonths, maxTermMonths } = content;
  if (min !== null && max !== null && min > max) refuse(M.amountLimits);
  if (minTermMonths !== null && maxTermMonths !== null && minTermMonths > maxTermMonths) refuse(M.termLimits);
  if (fixed !== null && ((min !== null && fixed < min) || (max !== null && fixed > max))) refuse(M.fixedAmountOutOfLimits);
  if (content.kind === 'KYC') {
    // A KYC product lends nothing: a price or a term would be read by nobody, so it is refused.
    if (content.pricing !== null || minTermMonths !== null || maxTermMonths !== null) refuse(M.kycWithoutCredit);
    return;
  }
  if (fixed === null && (min === null || max === null)) refuse(M.amountRequired);
  if (minTermMonths === null || maxTermMonths === null) refuse(M.termRequired);
  if (content.pricing === null) return refuse(M.pricingRequired);
  validatePricing(content.pricing, fixed ?? max);
}
