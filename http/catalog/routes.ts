import Type from 'typebox';
import { createPortfolio, createProduct, saveProposalSettings, updatePortfolio, updateProduct } from '../../application/catalog/commands.ts';
import type { Written } from '../../application/command-handler.ts';
import type { AppContext } from '../../application/context.ts';
import { replyAfterWrite, type Caller } from '../../application/read-your-writes.ts';
import { CatalogMessages } from '../../domain/catalog/messages.ts';
import type { PortfolioState } from '../../domain/catalog/portfolio-decider.ts';
import type { ProductState } from '../../domain/catalog/product-decider.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { CATALOG_PROJECTION } from '../../projections/catalog/projection.ts';
import { findPortfolioDated, findProduct, listPortfolios, listProducts, proposalSettings, type ProductFilter } from '../../projections/catalog/queries.ts';
import { Gates } from '../gates.ts';
import { route, type RouteTable } from '../route.ts';
import * as S from './schemas.ts';
import { presentProduct, presentPortfolio } from './present.ts';

/* Replies to writes come from the aggregate's own state (application/read-your-writes.ts). */
const writtenProduct = (app: AppContext, caller: Caller, written: Written<ProductState>) =>
  replyAfterWrite(app, caller, written, ({ state }) => presentProduct({ ...state.product!, createdAt: state.createdAt!, updatedAt: state.updatedAt! }));

const writtenPortfolio = (app: AppContext, caller: Caller, written: Written<PortfolioState>) =>
  replyAfterWrite(app, caller, written, ({ state }) => presentPortfolio({ ...state.portfolio!, createdAt: state.createdAt!, updatedAt: state.updatedAt! }));

const reads = [CATALOG_PROJECTION];

export const catalogRoutes: RouteTable = {
  module: 'catalog',
  description: 'Products, portfolios and proposal settings of the proposals module (docs/catalog.md)',
  routes: [
    route({
      method: 'get',
      path: '/v1/products',
      summary: "The organization's products, latest version of each, by key",
      gate: Gates.proposalsOperate,
      query: S.ProductListQuery,
      responses: { 200: Type.Array(S.ProductSchema) },
      reads,
      async handle({ app, principal, query }) {
        return (await listProducts(app.db, principal.organizationId, query as ProductFilter)).map(presentProduct);
      },
    }),
    route({
      method: 'get',
      path: '/v1/products/:id',
      summary: 'A product at its latest version',
      gate: Gates.proposalsOperate,
      params: S.IdParams,
      responses: { 200: S.ProductSchema },
      reads,
      async handle({ app, principal, params }) {
        const product = await findProduct(app.db, principal.organizationId, params.id.toLowerCase());
        if (!product) throw new DomainError('not_found', CatalogMessages.productNotFound);
        return presentProduct(product);
      },
    }),
    route({
      method: 'post',
      path: '/v1/products',
      summary: 'Create a product (version 1); its key is unique in the organization',
      gate: Gates.catalogManage,
      body: S.ProductBody,
      responses: { 200: S.ProductSchema },
      async handle({ app, principal, body }) {
        return writtenProduct(app, principal, await createProduct(app, principal, S.productContentOf(body)));
      },
    }),
    route({
      method: 'put',
      path: '/v1/products/:id',
      summary: 'Replace a product: a new version with the whole content (enabled false disables it)',
      description: 'The key cannot change. Unchanged content makes no version. Proposals keep the version they were priced with.',
      gate: Gates.catalogManage,
      params: S.IdParams,
      body: S.ProductBody,
      responses: { 200: S.ProductSchema },
      async handle({ app, principal, params, body }) {
        return writtenProduct(app, principal, await updateProduct(app, principal, params.id.toLowerCase(), S.productContentOf(body)));
      },
    }),
    route({
      method: 'get',
      path: '/v1/portfolios',
      summary: "The organization's portfolios, by name",
      gate: Gates.proposalsOperate,
      query: S.PortfolioListQuery,
      responses: { 200: Type.Array(S.PortfolioSchema) },
      reads,
      async handle({ app, principal, query }) {
        return (await listPortfolios(app.db, principal.organizationId, query)).map(presentPortfolio);
      },
    }),
    route({
      method: 'get',
      path: '/v1/portfolios/:id',
      summary: 'A portfolio',
      gate: Gates.proposalsOperate,
      params: S.IdParams,
      responses: { 200: S.PortfolioSchema },
      reads,
      async handle({ app, principal, params }) {
        const portfolio = await findPortfolioDated(app.db, principal.organizationId, params.id.toLowerCase());
        if (!portfolio) throw new DomainError('not_found', CatalogMessages.portfolioNotFound);
        return presentPortfolio(portfolio);
      },
    }),
    route({
      method: 'post',
      path: '/v1/portfolios',
      summary: 'Create a portfolio',
      gate: Gates.catalogManage,
      body: S.PortfolioBody,
      responses: { 200: S.PortfolioSchema },
      async handle({ app, principal, body }) {
        return writtenPortfolio(app, principal, await createPortfolio(app, principal, S.portfolioContentOf(body)));
      },
    }),
    route({
      method: 'put',
      path: '/v1/portfolios/:id',
      summary: 'Replace a portfolio (enabled false disables it; its proposals keep it)',
      gate: Gates.catalogManage,
      params: S.IdParams,
      body: S.PortfolioBody,
      responses: { 200: S.PortfolioSchema },
      async handle({ app, principal, params, body }) {
        return writtenPortfolio(app, principal, await updatePortfolio(app, principal, params.id.toLowerCase(), S.portfolioContentOf(body)));
      },
    }),
    route({
      method: 'get',
      path: '/v1/proposal-settings',
      summary: "The organization's proposal settings (the defaults until saved)",
      gate: Gates.proposalsOperate,
      responses: { 200: S.SettingsSchema },
      reads,
      async handle({ app, principal }) {
        return proposalSettings(app.db, principal.organizationId);
      },
    }),
    route({
      method: 'put',
      path: '/v1/proposal-settings',
      summary: 'Replace the proposal settings; an absent field takes its default',
      gate: Gates.catalogManage,
      body: S.SettingsBody,
      responses: { 200: S.SettingsSchema },
      async handle({ app, principal, body }) {
        return replyAfterWrite(app, principal, await saveProposalSettings(app, principal, S.settingsOf(body)), ({ state }) => state);
      },
    }),
  ],
};
