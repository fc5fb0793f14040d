import Type, { type Static } from 'typebox';
import { CatalogMessages } from '../../domain/catalog/messages.ts';
import { PRODUCT_KINDS, type PortfolioContent, type ProductContent } from '../../domain/catalog/product.ts';
import { bpsYearOf, MAX_RATE_BPS_YEAR } from '../../domain/catalog/rates.ts';
import { DEFAULT_PROPOSAL_SETTINGS, type ProposalSettings } from '../../domain/catalog/settings.ts';
import { AMORTIZATION_MODELS, ENTITY_TYPES, MARKET_INDEX_KEYS, type ProductRate } from '../../domain/pricing/terms.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { ObjectIdSchema } from '../route.ts';

/** R$ 1 billion: above any single credit, far below a float's exact integers. */
const MAX_CENTS = 100_000_000_000;
const Cents = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_CENTS, description });
const Months = (description: string) => Type.Integer({ minimum: 1, maximum: 600, description });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
/** A union hides its branch's errorMessage: the id's text goes on the union. */
const NullableId = () => Type.Union([ObjectIdSchema(), Type.Null()], { errorMessage: Messages.invalidId });
const Timestamps = { createdAt: Type.String({ format: 'date-time' }), updatedAt: Type.String({ format: 'date-time' }) };

export const IdParams = Type.Object({ id: ObjectIdSchema() });

const DecimalRate = Type.Object(
  {
    value: Type.String({ pattern: '^\\d{1,5}(\\.\\d{1,8})?$', errorMessage: CatalogMessages.decimalRateFormat, description: 'percent as a decimal string, e.g. "1.99"' }),
    period: Type.Enum(['MONTH', 'YEAR']),
  },
  { description: 'the rate as a lender says it; a MONTH rate compounds to the year for the bps field' },
);

/** Flat rather than a union, so a wrong field gets its own message rather than the union's. */
const Rate = Type.Object({
  kind: Type.Enum(['FIXED', 'INDEXED']),
  rateBpsYear: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_RATE_BPS_YEAR, description: 'FIXED: bps a year; computed from rate when absent' })),
  rate: Type.Optional(DecimalRate),
  index: Type.Optional(Type.Enum(MARKET_INDEX_KEYS as string[], { description: 'INDEXED: the market index' })),
  spreadBpsYear: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_RATE_BPS_YEAR, description: 'INDEXED: spread over the index, bps a year' })),
  spread: Type.Optional(DecimalRate),
});

const Fee = Type.Object({
  key: Type.String({ pattern: '^[a-z0-9][a-z0-9-_]{0,39}$' }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  amountCents: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CENTS })),
  percentBps: Type.Optional(Type.Integer({ minimum: 0, maximum: 5000, description: 'share of the amount, up to 50%' })),
  financed: Type.Boolean({ default: false, description: 'added to the financed amount instead of paid upfront' }),
});

const Pricing = Type.Object({
  model: Type.Enum(AMORTIZATION_MODELS as string[]),
  rate: Rate,
  fees: Type.Array(Fee, { default: [], maxItems: 20 }),
  iof: Type.Object({ applies: Type.Boolean(), financed: Type.Boolean() }),
  moveDueDatesToBusinessDay: Type.Boolean({ default: false }),
});

export const ProductBody = Type.Object({
  key: Type.String({ pattern: '^[a-z0-9][a-z0-9-_]{1,59}$', errorMessage: CatalogMessages.productKeyFormat }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  kind: Type.Enum(PRODUCT_KINDS as string[]),
  entityTypes: Type.Array(Type.Enum(ENTITY_TYPES as string[]), { maxItems: ENTITY_TYPES.length }),
  enabled: Type.Boolean({ default: true }),
  fixedAmountCents: Type.Optional(Nullable(Cents('an amount every proposal of the product takes'))),
  minAmountCents: Type.Optional(Nullable(Cents('smallest amount a proposal may ask'))),
  maxAmountCents: Type.Optional(Nullable(Cents('largest amount a proposal may ask'))),
  minTermMonths: Type.Optional(Nullable(Months('shortest term'))),
  maxTermMonths: Type.Optional(Nullable(Months('longest term'))),
  pricing: Type.Optional(Nullable(Pricing)),
  defaultOperationId: Type.Optional(NullableId()),
  collectionTemplateSlugs: Type.Array(Type.String({ pattern: '^[A-Za-z0-9_-]{1,120}$' }), { default: [], maxItems: 20 }),
});
export type ProductBody = Static<typeof ProductBody>;

export const ProductSchema = Type.Object({ id: Type.String(), version: Type.Integer(), ...ProductBody.properties, ...Timestamps });

function rateOf(rate: Static<typeof Rate>): ProductRate {
  if (rate.kind === 'FIXED') {
    const bps = rate.rateBpsYear ?? (rate.rate && bpsYearOf(rate.rate));
    if (bps === undefined) throw new DomainError('invalid', CatalogMessages.rateRequired);
    return { kind: 'FIXED', rateBpsYear: bps, ...(rate.rate && { rate: rate.rate }) } as ProductRate;
  }
  const spread = rate.spreadBpsYear ?? (rate.spread && bpsYearOf(rate.spread));
  if (spread === undefined || !rate.index) throw new DomainError('invalid', CatalogMessages.indexRequired);
  return { kind: 'INDEXED', index: rate.index, spreadBpsYear: spread, ...(rate.spread && { spread: rate.spread }) } as ProductRate;
}

/** The body as a complete product: absent limits are null, the bps computed from a decimal rate. */
export function productContentOf(body: ProductBody): ProductContent {
  const { pricing } = body;
  return {
    key: body.key,
    name: body.name.trim(),
    kind: body.kind as ProductContent['kind'],
    entityTypes: body.entityTypes as ProductContent['entityTypes'],
    enabled: body.enabled,
    fixedAmountCents: body.fixedAmountCents ?? null,
    minAmountCents: body.minAmountCents ?? null,
    maxAmountCents: body.maxAmountCents ?? null,
    minTermMonths: body.minTermMonths ?? null,
    maxTermMonths: body.maxTermMonths ?? null,
    pricing: pricing
      ? {
          model: pricing.model as 'PRICE' | 'SAC',
          rate: rateOf(pricing.rate),
          fees: pricing.fees.map((f) => ({ ...f, name: f.name.trim() })),
          iof: pricing.iof,
          moveDueDatesToBusinessDay: pricing.moveDueDatesToBusinessDay,
        }
      : null,
    defaultOperationId: body.defaultOperationId?.toLowerCase() ?? null,
    collectionTemplateSlugs: body.collectionTemplateSlugs,
  };
}

export const ProductListQuery = Type.Object({
  kind: Type.Optional(Type.Enum(PRODUCT_KINDS as string[])),
  entityType: Type.Optional(Type.Enum(ENTITY_TYPES as string[])),
  enabled: Type.Optional(Type.Boolean()),
});

export const PortfolioBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 120 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  enabled: Type.Boolean({ default: true }),
});
export const PortfolioSchema = Type.Object({ id: Type.String(), ...PortfolioBody.properties, ...Timestamps });
export const PortfolioListQuery = Type.Object({ enabled: Type.Optional(Type.Boolean()) });

export const portfolioContentOf = (body: Static<typeof PortfolioBody>): PortfolioContent => ({
  name: body.name.trim(),
  description: body.description ?? null,
  enabled: body.enabled,
});

const D = DEFAULT_PROPOSAL_SETTINGS;
const Text = (maxLength: number, pattern?: string) => Type.Optional(Nullable(Type.String({ minLength: 1, maxLength, ...(pattern && { pattern }) })));

/** Every field optional: an absent one takes its default (a PUT replaces the whole settings). */
export const SettingsBody = Type.Object({
  indicativeOfferValidityDays: Type.Integer({ minimum: 1, maximum: 90, default: D.indicativeOfferValidityDays }),
  firmOfferValidityDays: Type.Integer({ minimum: 1, maximum: 90, default: D.firmOfferValidityDays }),
  customerLinkValidityHours: Type.Integer({ minimum: 1, maximum: 720, default: D.customerLinkValidityHours }),
  defaultPortfolioId: Type.Optional(NullableId()),
  finalApprovalRequiresOperator: Type.Boolean({ default: D.finalApprovalRequiresOperator }),
  dashboardSla: Type.String({ maxLength: 200, default: D.dashboardSla, description: 'STATUS:days separated by commas, as the dashboard sla' }),
  publicPage: Type.Optional(
    Type.Object({
      lenderDisplayName: Text(120),
      supportEmail: Text(200, '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$'),
      supportPhone: Text(30, '^[0-9+() -]{8,30}$'),
    }),
  ),
});
export const SettingsSchema = Type.Object({
  ...SettingsBody.properties,
  defaultPortfolioId: Nullable(Type.String()),
  publicPage: Type.Object({ lenderDisplayName: Nullable(Type.String()), supportEmail: Nullable(Type.String()), supportPhone: Nullable(Type.String()) }),
});

export const settingsOf = (body: Static<typeof SettingsBody>): ProposalSettings => ({
  indicativeOfferValidityDays: body.indicativeOfferValidityDays,
  firmOfferValidityDays: body.firmOfferValidityDays,
  customerLinkValidityHours: body.customerLinkValidityHours,
  defaultPortfolioId: body.defaultPortfolioId?.toLowerCase() ?? null,
  finalApprovalRequiresOperator: body.finalApprovalRequiresOperator,
  dashboardSla: body.dashboardSla,
  publicPage: {
    lenderDisplayName: body.publicPage?.lenderDisplayName?.trim() || null,
    supportEmail: body.publicPage?.supportEmail ?? null,
    supportPhone: body.publicPage?.supportPhone ?? null,
  },
});
