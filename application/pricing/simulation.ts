import { IOF_RATES } from '../../domain/pricing/iof.ts';
import { PricingMessages } from '../../domain/pricing/messages.ts';
import { simulate, type RateInput, type Simulation, type SimulationInput } from '../../domain/pricing/simulate.ts';
import type { AmortizationModel, DecimalRate, EntityType, Fee, MarketIndexKey, ProductPricing, ProductRate } from '../../domain/pricing/terms.ts';
import type { Product } from '../../domain/catalog/product.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { findProductByKey } from '../../projections/catalog/queries.ts';
import { marketIndexesFor } from '../../projections/pricing/queries.ts';
import type { AppContext } from '../context.ts';
import { brazilHolidays } from './holidays.ts';
import { formatBRL } from '../../domain/shared/money.ts';

/** What POST /v1/pricing/simulate takes, after validation. */
export interface SimulationRequest {
  productKey?: string;
  amountCents: number;
  termMonths: number;
  entityType: EntityType;
  simplesNacional?: boolean;
  releaseDate: string;
  firstDueDate: string;
  model?: AmortizationModel;
  rateBpsYear?: number;
  rate?: DecimalRate;
  index?: MarketIndexKey;
  spreadBpsYear?: number;
  spread?: DecimalRate;
  fees?: Fee[];
  iof?: { applies?: boolean; financed?: boolean };
  moveDueDatesToBusinessDay?: boolean;
}

export interface PricedSimulation extends Simulation {
  productKey: string | null;
  index: { key: MarketIndexKey; percentYear: string; date: string } | null;
}

/** The request's own pricing: exactly one way of giving the rate. */
function requestPricing(request: SimulationRequest): ProductPricing {
  const ways = [request.rateBpsYear !== undefined, request.rate !== undefined, request.index !== undefined].filter(Boolean).length;
  if (ways === 0) throw new DomainError('invalid', PricingMessages.rateMissing);
  if (ways > 1) throw new DomainError('invalid', PricingMessages.rateAmbiguous);
  const rate: ProductRate = request.index
    ? { kind: 'INDEXED', index: request.index, spreadBpsYear: request.spreadBpsYear ?? 0, spread: request.spread }
    : { kind: 'FIXED', rateBpsYear: request.rateBpsYear ?? 0, rate: request.rate };
  return {
    model: request.model ?? 'PRICE',
    rate,
    fees: request.fees ?? [],
    iof: { applies: request.iof?.applies ?? true, financed: request.iof?.financed ?? false },
    moveDueDatesToBusinessDay: request.moveDueDatesToBusinessDay ?? false,
  };
}

/** The product's pricing, with the request checked against the product's limits. */
function productPricing(product: Product | null, request: SimulationRequest): ProductPricing {
  if (!product || !product.enabled) throw new DomainError('not_found', PricingMessages.productNotFound);
  if (!product.pricing) throw new DomainError('invalid', PricingMessages.productWithoutPricing);
  if (!product.entityTypes.includes(request.entityType)) throw new DomainError('invalid', PricingMessages.entityTypeNotServed);
  if (product.fixedAmountCents !== null && request.amountCents !== product.fixedAmountCents) throw new DomainError('invalid', PricingMessages.productAmountFixed);
  const [minAmount, maxAmount] = [product.minAmountCents ?? 1, product.maxAmountCents ?? Number.MAX_SAFE_INTEGER];
  if (request.amountCents < minAmount || request.amountCents > maxAmount) throw new DomainError('invalid', PricingMessages.amountOutOfRange(formatBRL(minAmount), formatBRL(maxAmount)));
  const [minTerm, maxTerm] = [product.minTermMonths ?? 1, product.maxTermMonths ?? 600];
  if (request.termMonths < minTerm || request.termMonths > maxTerm) throw new DomainError('invalid', PricingMessages.termOutOfRange(minTerm, maxTerm));
  return product.pricing;
}

/**
 * A simulation for an organization: pricing from its product (productKey) or from the request,
 * an indexed rate at the organization's index value, Brazil's holidays, the dated IOF table.
 */
export async function simulateFor(app: Pick<AppContext, 'db'>, organizationId: string, request: SimulationRequest): Promise<PricedSimulation> {
  const pricing = request.productKey ? productPricing(await findProductByKey(app.db, organizationId, request.productKey), request) : requestPricing(request);
  let index: PricedSimulation['index'] = null;
  let rate: RateInput;
  if (pricing.rate.kind === 'INDEXED') {
    const key = pricing.rate.index;
    const value = (await marketIndexesFor(app.db, organizationId)).find((i) => i.key === key)!;
    index = { key, percentYear: value.percentYear, date: value.date };
    rate = { kind: 'INDEXED', index: key, indexPercentYear: value.percentYear, spreadBpsYear: pricing.rate.spreadBpsYear, spread: pricing.rate.spread };
  } else {
    rate = { kind: 'FIXED', rateBpsYear: pricing.rate.rateBpsYear, rate: pricing.rate.rate };
  }
  const input: SimulationInput = {
    amountCents: request.amountCents,
    termMonths: request.termMonths,
    rate,
    model: pricing.model,
    entityType: request.entityType,
    simplesNacional: request.simplesNacional ?? false,
    releaseDate: request.releaseDate,
    firstDueDate: request.firstDueDate,
    fees: pricing.fees,
    iof: pricing.iof.applies ? pricing.iof : { applies: false, financed: false },
    moveDueDatesToBusinessDay: pricing.moveDueDatesToBusinessDay,
  };
  return { ...simulate(input, brazilHolidays, IOF_RATES), productKey: request.productKey ?? null, index };
}
