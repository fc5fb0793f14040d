import Type from 'typebox';
import { setMarketIndex } from '../../application/pricing/commands.ts';
import { simulateFor } from '../../application/pricing/simulation.ts';
import { rememberWrite } from '../../application/read-your-writes.ts';
import { parseDay } from '../../domain/pricing/calendar.ts';
import { IOF_RATES } from '../../domain/pricing/iof.ts';
import { PricingMessages } from '../../domain/pricing/messages.ts';
import { AMORTIZATION_MODELS, ENTITY_TYPES, MARKET_INDEX_KEYS } from '../../domain/pricing/terms.ts';
import { CATALOG_PROJECTION } from '../../projections/catalog/projection.ts';
import { PRICING_PROJECTION } from '../../projections/pricing/projection.ts';
import { marketIndexesFor } from '../../projections/pricing/queries.ts';
import { Gates } from '../gates.ts';
import { HttpError } from '../errors.ts';
import { route, type RouteTable } from '../route.ts';
import { IndexBody, IndexParams, IndexSchema, MODEL_DESCRIPTIONS, ModelsSchema, SimulateBody, SimulationSchema } from './schemas.ts';

/** Setting an index moves every price of the organization: an operations manager's call, inside the proposals module. */
const indexManage = { ...Gates.proposalsOperate, permissions: ['can-manage-operations'] } as const;

export const pricingRoutes: RouteTable = {
  module: 'pricing',
  description: 'Pricing: amortization models, market indexes and installment simulations (IOF, fees, CET)',
  routes: [
    route({
      method: 'get',
      path: '/v1/pricing/models',
      summary: 'Amortization models, entity types, indexes and the dated IOF table a simulation uses',
      gate: Gates.proposalsOperate,
      responses: { 200: ModelsSchema },
      async handle() {
        return {
          models: AMORTIZATION_MODELS.map((key) => ({ key, name: key === 'PRICE' ? 'Tabela Price' : 'SAC', description: MODEL_DESCRIPTIONS[key] })),
          entityTypes: [...ENTITY_TYPES],
          indexes: [...MARKET_INDEX_KEYS],
          iofRates: IOF_RATES.map(({ bracket, from, dailyPercent, additionalPercent, source }) => ({ bracket, from, dailyPercent, additionalPercent, source })),
        };
      },
    }),
    route({
      method: 'get',
      path: '/v1/pricing/indexes',
      summary: "The market indexes as the organization prices with them (its own value, else Banco Central's, else the seeded one)",
      gate: Gates.proposalsOperate,
      responses: { 200: Type.Array(IndexSchema) },
      reads: [PRICING_PROJECTION],
      async handle({ app, principal }) {
        return marketIndexesFor(app.db, principal.organizationId);
      },
    }),
    route({
      method: 'put',
      path: '/v1/pricing/indexes/:key',
      summary: "Set the organization's own value of an index (other organizations keep theirs)",
      gate: indexManage,
      params: IndexParams,
      body: IndexBody,
      responses: { 200: IndexSchema },
      async handle({ app, principal, params, body }) {
        if (parseDay(body.date) === null) throw new HttpError(400, PricingMessages.invalidIndexDate);
        const position = await setMarketIndex(app, principal, params.key, { percentYear: body.percentYear, date: body.date });
        rememberWrite(app, principal, position);
        // Kept: the reply's updatedAt and source are the read model's (an unchanged value appends nothing, so the stream's result has neither).
        await app.readYourWrites([PRICING_PROJECTION], position);
        return (await marketIndexesFor(app.db, principal.organizationId)).find((i) => i.key === params.key)!;
      },
    }),
    route({
      method: 'post',
      path: '/v1/pricing/simulate',
      summary: 'Simulate a credit operation: every installment, IOF, fees, totals and CET (month and year)',
      description:
        "The rate is one of rateBpsYear, rate {value, period} (percent as a decimal string) or index plus spreadBpsYear/spread; or productKey takes the catalog product's pricing. Computes and stores nothing.",
      gate: Gates.proposalsOperate,
      body: SimulateBody,
      responses: { 200: SimulationSchema },
      errors: [404],
      // An index and a product's pricing come from the read models.
      reads: [PRICING_PROJECTION, CATALOG_PROJECTION],
      async handle({ app, principal, body }) {
        return simulateFor(app, principal.organizationId, body);
      },
    }),
  ],
};
