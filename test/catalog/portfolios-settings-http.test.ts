import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { catalogDemoSeeder, DEMO_PORTFOLIOS, DEMO_PRODUCTS } from '../../application/catalog/demo.ts';
import { CatalogMessages as M } from '../../domain/catalog/messages.ts';
import { DEFAULT_PROPOSAL_SETTINGS } from '../../domain/catalog/settings.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { proposalSettings } from '../../projections/catalog/queries.ts';
import type { TestApp } from '../support/app.ts';
import { provisionTenant, serviceWithTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';

const test = suite('portfolios, proposal settings and the demo catalog through HTTP');
let app: TestApp;
let tenant: TestTenant;
const MISSING = '0123456789abcdef01234567';

const call = serviceWithTenant(test, (a, t) => {
  app = a;
  tenant = t;
});

test('portfolios: create, read, list, update, disable, 400s and 404s', async () => {
  const created = await call('POST', '/v1/portfolios', { name: ' Varejo ', organizationId: MISSING, extra: 1 });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const p = created.body;
  assert.equal({ name: p.name, description: p.description, enabled: p.enabled, extra: p.extra }, { name: 'Varejo', description: null, enabled: true, extra: undefined });
  assert.equal((await call('GET', `/v1/portfolios/${p.id}`)).body, p);
  const off = (await call('PUT', `/v1/portfolios/${p.id}`, { name: 'Varejo', description: 'PF', enabled: false })).body;
  assert.equal([off.description, off.enabled, off.createdAt], ['PF', false, p.createdAt]);
  assert.ok((await call('GET', '/v1/portfolios?enabled=false')).body.some((x: any) => x.id === p.id));
  assert.not.ok((await call('GET', '/v1/portfolios?enabled=true')).body.some((x: any) => x.id === p.id));
  assert.equal((await call('POST', '/v1/portfolios', { name: '' })).body, { code: 400, message: 'name should not be empty' });
  assert.equal((await call('GET', '/v1/portfolios/xyz')).body, { code: 400, message: Messages.invalidId });
  assert.equal((await call('GET', `/v1/portfolios/${MISSING}`)).body, { code: 404, message: M.portfolioNotFound });
  assert.equal((await call('PUT', `/v1/portfolios/${MISSING}`, { name: 'X' })).body, { code: 404, message: M.portfolioNotFound });
});

test('settings: defaults until saved; a PUT replaces them, absent fields taking defaults', async () => {
  assert.equal((await call('GET', '/v1/proposal-settings')).body, DEFAULT_PROPOSAL_SETTINGS);
  const portfolio = (await call('POST', '/v1/portfolios', { name: 'Padrão' })).body;
  const body = {
    firmOfferValidityDays: 10,
    defaultPortfolioId: portfolio.id,
    dashboardSla: 'DRAFT:3,WAITING_CUSTOMER:10',
    publicPage: { lenderDisplayName: 'Banco X', supportEmail: 'sac@bancox.com.br' },
    userId: 'x',
  };
  const saved = await call('PUT', '/v1/proposal-settings', body);
  const expected = {
    ...DEFAULT_PROPOSAL_SETTINGS,
    firmOfferValidityDays: 10,
    defaultPortfolioId: portfolio.id,
    dashboardSla: 'DRAFT:3,WAITING_CUSTOMER:10',
    publicPage: { lenderDisplayName: 'Banco X', supportEmail: 'sac@bancox.com.br', supportPhone: null },
  };
  assert.equal(saved.body, expected);
  assert.equal((await call('GET', '/v1/proposal-settings')).body, expected);
  assert.equal(await proposalSettings(app.app.db, tenant.organizationId), expected, 'the query other modules read');
  assert.equal((await call('PUT', '/v1/proposal-settings', {})).body, DEFAULT_PROPOSAL_SETTINGS);
});

test('settings 400s: sla, default portfolio absent, disabled or of another tenant, bounds, id', async () => {
  const before = (await call('GET', '/v1/proposal-settings')).body;
  assert.equal((await call('PUT', '/v1/proposal-settings', { dashboardSla: 'OPEN:2' })).body, { code: 400, message: M.slaFormat });
  assert.equal((await call('PUT', '/v1/proposal-settings', { defaultPortfolioId: MISSING })).body, { code: 400, message: M.defaultPortfolioInvalid });
  const off = (await call('POST', '/v1/portfolios', { name: 'Desativada', enabled: false })).body;
  assert.equal((await call('PUT', '/v1/proposal-settings', { defaultPortfolioId: off.id })).body, { code: 400, message: M.defaultPortfolioInvalid });
  const other = await provisionTenant(app, { name: 'Outra' });
  const theirs = (await call('POST', '/v1/portfolios', { name: 'Deles' }, other.token)).body;
  assert.equal((await call('PUT', '/v1/proposal-settings', { defaultPortfolioId: theirs.id })).body, { code: 400, message: M.defaultPortfolioInvalid });
  assert.equal((await call('PUT', '/v1/proposal-settings', { defaultPortfolioId: 'x' })).body, { code: 400, message: Messages.invalidId });
  assert.equal((await call('PUT', '/v1/proposal-settings', { firmOfferValidityDays: 0 })).body, { code: 400, message: 'firmOfferValidityDays must not be less than 1' });
  assert.equal((await call('GET', '/v1/proposal-settings')).body, before, 'nothing saved');
});

test('gates: module 403 with the spec text, permission 403 on writes, another tenant sees its own', async () => {
  const p = (await call('POST', '/v1/portfolios', { name: 'Minha' })).body;
  const noModule = await provisionTenant(app, { name: 'Sem propostas', modules: ['reports'] });
  const routes = [
    ['GET', '/v1/portfolios'],
    ['GET', `/v1/portfolios/${p.id}`],
    ['POST', '/v1/portfolios'],
    ['PUT', `/v1/portfolios/${p.id}`],
    ['GET', '/v1/proposal-settings'],
    ['PUT', '/v1/proposal-settings'],
  ] as const;
  for (const [method, path] of routes) {
    const reply = await call(method, path, method === 'GET' ? undefined : { name: 'X' }, noModule.token);
    assert.equal(reply.body, { code: 403, message: Messages.proposalsModuleDisabled }, `${method} ${path}`);
  }
  // An operator (of its own organization) reads the catalog but may not change it; the gate answers before any lookup.
  const operator = await provisionTenant(app, { name: 'Operador', permissions: ['can-use-registry-api'] });
  for (const path of ['/v1/portfolios', '/v1/proposal-settings']) assert.is((await call('GET', path, undefined, operator.token)).status, 200, path);
  for (const [method, path] of routes.filter(([m]) => m !== 'GET')) {
    assert.equal((await call(method, path, { name: 'X' }, operator.token)).body, { code: 403, message: Messages.forbidden }, `${method} ${path}`);
  }
  const stranger = await provisionTenant(app, { name: 'Estranha' });
  assert.equal((await call('GET', `/v1/portfolios/${p.id}`, undefined, stranger.token)).body, { code: 404, message: M.portfolioNotFound });
  assert.equal((await call('PUT', `/v1/portfolios/${p.id}`, { name: 'Tomada' }, stranger.token)).body, { code: 404, message: M.portfolioNotFound });
  assert.equal((await call('GET', '/v1/proposal-settings', undefined, stranger.token)).body, DEFAULT_PROPOSAL_SETTINGS);
});

test('the demo seeder: products of every kind, portfolios and settings, readable through the routes', async () => {
  const demo = await provisionTenant(app, { name: 'Demo' });
  const principal = { organizationId: demo.organizationId, userId: demo.userId } as never;
  const seeded = (await catalogDemoSeeder.seed(app.app, { organizationId: demo.organizationId, userId: demo.userId, principal })) as {
    products: Array<{ id: string; key: string }>;
    portfolios: Array<{ id: string; name: string }>;
  };
  assert.equal(
    seeded.products.map((p) => p.key),
    DEMO_PRODUCTS.map((p) => p.key),
  );
  // Like the CLI, the seeder leaves the projection to catch up: read once the settings are in.
  await eventually(async () => (await proposalSettings(app.app.db, demo.organizationId)).defaultPortfolioId !== null, { timeoutMs: 10_000, what: 'demo settings projected' });
  const products = (await call('GET', '/v1/products', undefined, demo.token)).body;
  assert.equal(products.map((p: any) => p.key).sort(), DEMO_PRODUCTS.map((p) => p.key).sort());
  assert.equal([...new Set(products.map((p: any) => p.kind))].sort(), ['FINANCING', 'INSTALLMENT_SALE', 'KYC']);
  const personal = products.find((p: any) => p.key === 'credito-pessoal');
  assert.equal(personal.pricing.rate, { kind: 'FIXED', rateBpsYear: 2682, rate: { value: '2', period: 'MONTH' } });
  assert.is(products.find((p: any) => p.key === 'capital-de-giro').pricing.rate.index, 'CDI');
  const portfolios = (await call('GET', '/v1/portfolios', undefined, demo.token)).body;
  assert.equal(portfolios.map((p: any) => p.name).sort(), DEMO_PORTFOLIOS.map((p) => p.name).sort());
  const settings = (await call('GET', '/v1/proposal-settings', undefined, demo.token)).body;
  assert.is(settings.defaultPortfolioId, seeded.portfolios[0]!.id);
  assert.is(settings.publicPage.lenderDisplayName, 'Crédito Demo');
});

test.run();
