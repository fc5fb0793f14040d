import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Messages } from '../../domain/shared/messages.ts';
import { ProposalMessages } from '../../domain/proposal/messages.ts';
import { DashboardMessages } from '../../domain/dashboard/messages.ts';
import { proposalStream } from '../../domain/proposal/events.ts';
import type { TestApp } from '../support/app.ts';
import { personalCredit, seedPortfolio, seedProduct } from '../support/catalog.ts';
import { provisionTenant, serviceWithTenant, type TestTenant } from '../support/identity.ts';

const test = suite('proposals through HTTP');
let app: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let portfolioId: string;
const MISSING = '0123456789abcdef01234567';
const CPF = '123.456.789-09';

const call = serviceWithTenant(test, async (a, t) => {
  app = a;
  tenant = t;
  other = await provisionTenant(app, { name: 'Other' });
  await seedProduct(app, tenant.organizationId);
  await seedProduct(app, tenant.organizationId, personalCredit({ key: 'capital-giro', name: 'Capital de giro', entityTypes: ['COMPANY'] }));
  portfolioId = await seedPortfolio(app, tenant.organizationId);
});
const body = (extra: Record<string, unknown> = {}) => ({
  document: CPF,
  name: 'Maria da Silva',
  productKey: 'credito-pessoal',
  requestedAmountCents: 1_000_000,
  requestedTermMonths: 12,
  contact: { name: 'Maria', email: 'maria@example.com', phone: '+5511999990000' },
  ...extra,
});

test('create: DRAFT with every field, digits only, a new proposal every time; unknown and tenant fields dropped', async () => {
  const created = await call(
    'POST',
    '/v1/proposals',
    body({
      origin: 'CRM',
      portfolioId,
      externalId: 'crm-1',
      correspondentId: 'c1'.repeat(12),
      agentId: 'a1'.repeat(12),
      organizationId: other.organizationId,
      userId: 'x',
      color: 'blue',
      participants: [{ document: '11144477735', name: 'João', role: 'GUARANTOR' }],
    }),
  );
  assert.is(created.status, 201, JSON.stringify(created.body));
  const p = created.body;
  assert.is(p.status, 'DRAFT');
  assert.is(p.document, '12345678909');
  assert.is(p.entityType, 'PERSON');
  assert.is(p.kind, 'FINANCING', 'kind defaults to the product');
  assert.is(p.origin, 'CRM');
  assert.is(p.portfolioName, 'Varejo');
  assert.is(p.productName, 'Crédito pessoal');
  assert.equal(
    p.participants.map((x: any) => [x.document, x.role, x.entityType]),
    [['11144477735', 'GUARANTOR', 'PERSON']],
  );
  assert.is(p.rounds.length, 0);
  assert.equal(p.contact, { name: 'Maria', email: 'maria@example.com', phone: '+5511999990000' });
  assert.not.ok('color' in p);
  const events = await app.app.store.readStream(proposalStream(p.id));
  assert.is(events[0]!.data.organizationId, tenant.organizationId, 'organizationId comes from the token');
  assert.is(events[0]!.data.userId, tenant.userId);
  const again = await call('POST', '/v1/proposals', body());
  assert.is(again.status, 201);
  assert.is.not(again.body.id, p.id);
  assert.equal((await call('GET', `/v1/proposals/${p.id}`)).body, p);
});

test('create refusals: product, entity type, limits, document, portfolio, validation', async () => {
  const refused = async (extra: Record<string, unknown>, message: string) => {
    const reply = await call('POST', '/v1/proposals', body(extra));
    assert.equal(reply.body, { code: 400, message }, JSON.stringify(extra));
  };
  await refused({ productKey: 'nao-existe' }, Messages.invalidProduct);
  await refused({ productKey: 'capital-giro' }, Messages.invalidProduct);
  await refused({ requestedAmountCents: 99_999 }, ProposalMessages.amountBelow(100_000));
  await refused({ requestedAmountCents: 5_000_001 }, ProposalMessages.amountAbove(5_000_000));
  await refused({ requestedTermMonths: 2 }, ProposalMessages.termBelow(3));
  await refused({ requestedTermMonths: 37 }, ProposalMessages.termAbove(36));
  await refused({ requestedAmountCents: undefined }, ProposalMessages.amountRequired);
  await refused({ document: '123.456.789-00' }, Messages.invalidDocument);
  await refused({ document: '1234' }, Messages.invalidDocument);
  await refused({ portfolioId: MISSING }, ProposalMessages.invalidPortfolio);
  // Ids the dashboard can filter on: the same texts as its filters.
  await refused({ correspondentId: 'corr-1' }, DashboardMessages.badCorrespondent);
  await refused({ agentId: 'not-an-id' }, DashboardMessages.badAgent);
  const twice = await call(
    'POST',
    '/v1/proposals',
    body({
      participants: [
        { document: '11144477735', name: 'A', role: 'SPOUSE' },
        { document: '111.444.777-35', name: 'B', role: 'PARTNER' },
      ],
    }),
  );
  assert.equal(twice.body, { code: 409, message: ProposalMessages.participantAlreadyAdded });
  const bad = await call('POST', '/v1/proposals', body({ portfolioId: 'abc' }));
  assert.is(bad.status, 400);
  const company = await call('POST', '/v1/proposals', body({ document: '11.222.333/0001-81', productKey: 'capital-giro' }));
  assert.is(company.body.entityType, 'COMPANY');
});

test('list: paged, searched by document, name and externalId, filtered', async () => {
  await call('POST', '/v1/proposals', body({ name: 'Zuleica Ramos', externalId: 'ext-zz', origin: 'BATCH' }));
  const all = (await call('GET', '/v1/proposals?pageSize=2')).body;
  assert.ok(all.total >= 4);
  assert.is(all.items.length, 2);
  assert.ok(all.items[0].createdAt >= all.items[1].createdAt, 'newest first');
  assert.equal(
    (await call('GET', '/v1/proposals?search=zuleica')).body.items.map((i: any) => i.externalId),
    ['ext-zz'],
  );
  assert.is((await call('GET', '/v1/proposals?search=ext-zz')).body.total, 1);
  assert.ok((await call('GET', '/v1/proposals?search=123.456')).body.items.every((i: any) => i.document.startsWith('123456')));
  assert.equal(
    (await call('GET', '/v1/proposals?origin=BATCH')).body.items.map((i: any) => i.name),
    ['Zuleica Ramos'],
  );
  assert.ok((await call('GET', `/v1/proposals?portfolioId=${portfolioId}`)).body.items.every((i: any) => i.portfolioId === portfolioId));
  assert.is((await call('GET', '/v1/proposals?productKey=capital-giro')).body.total, 1);
  assert.is((await call('GET', '/v1/proposals?status=ISSUED,CANCELED')).body.total, 0);
  assert.is((await call('GET', '/v1/proposals?createdFrom=2999-01-01')).body.total, 0);
  const today = new Date().toISOString().slice(0, 10);
  assert.is((await call('GET', `/v1/proposals?createdFrom=${today}&createdTo=${today}`)).body.total, all.total, 'a day alone is the whole day');
  assert.is((await call('GET', '/v1/proposals', undefined, other.token)).body.total, 0, 'another tenant sees none');
  for (const query of ['page=0', 'pageSize=0', 'pageSize=101', 'status=NOPE', 'createdFrom=ontem']) assert.is((await call('GET', `/v1/proposals?${query}`)).status, 400, query);
});

test('status: same is unchanged, allowed moves, disallowed 409 naming both states, terminal stays', async () => {
  const p = (await call('POST', '/v1/proposals', body())).body;
  const same = await call('PATCH', `/v1/proposals/${p.id}/status`, { status: 'DRAFT' });
  assert.is(same.status, 200);
  assert.is(same.body.timeline.length, 1, 'no event');
  assert.equal((await call('PATCH', `/v1/proposals/${p.id}/status`, { status: 'ISSUED' })).body, { code: 409, message: ProposalMessages.statusMove('DRAFT', 'ISSUED') });
  const moved = (await call('PATCH', `/v1/proposals/${p.id}/status`, { status: 'WAITING_OPERATOR', reason: 'revisão' })).body;
  assert.is(moved.status, 'WAITING_OPERATOR');
  assert.is(moved.timeline.at(-1).type, 'ProposalStatusChanged');
  assert.is((await call('PATCH', `/v1/proposals/${p.id}/status`, { status: 'CANCELED' })).body.status, 'CANCELED');
  assert.equal((await call('PATCH', `/v1/proposals/${p.id}/status`, { status: 'DRAFT' })).body, { code: 409, message: ProposalMessages.statusMove('CANCELED', 'DRAFT') });
  assert.is((await call('GET', `/v1/proposals?status=CANCELED`)).body.items[0].id, p.id);
  assert.is((await call('PATCH', `/v1/proposals/${p.id}/status`, { status: 'SOLD' })).status, 400);
});

test('participants: add, list, change, remove, with their errors', async () => {
  const p = (await call('POST', '/v1/proposals', body())).body;
  const base = `/v1/proposals/${p.id}/participants`;
  const added = await call('POST', base, { document: '11.222.333/0001-81', name: 'Empresa', role: 'PARTNER', organizationId: other.organizationId });
  assert.is(added.status, 201, JSON.stringify(added.body));
  assert.is(added.body.entityType, 'COMPANY');
  assert.equal((await call('POST', base, { document: '11222333000181', name: 'De novo', role: 'PARTNER' })).body, { code: 409, message: ProposalMessages.participantAlreadyAdded });
  assert.equal((await call('POST', base, { document: '11222333000182', name: 'X', role: 'PARTNER' })).body, { code: 400, message: Messages.invalidDocument });
  assert.is((await call('POST', base, { document: '11144477735', name: 'X', role: 'BOSS' })).status, 400);
  const changed = await call('PATCH', `${base}/${added.body.id}`, { role: 'GUARANTOR', contact: { email: 'a@b.c' } });
  assert.equal([changed.body.role, changed.body.name, changed.body.contact], ['GUARANTOR', 'Empresa', { name: null, email: 'a@b.c', phone: null }]);
  assert.equal((await call('GET', base)).body, [changed.body]);
  assert.equal((await call('PATCH', `${base}/${MISSING}`, { role: 'SPOUSE' })).body, { code: 404, message: ProposalMessages.participantNotFound });
  assert.equal((await call('DELETE', `${base}/${added.body.id}`)).body, []);
  assert.equal((await call('DELETE', `${base}/${added.body.id}`)).body, { code: 404, message: ProposalMessages.participantNotFound });
  assert.is((await call('DELETE', `${base}/nope`)).status, 400);
});

test('ids, tenants and the module gate', async () => {
  const p = (await call('POST', '/v1/proposals', body())).body;
  const notFound = { code: 404, message: Messages.proposalNotFound };
  for (const [method, path, payload] of [
    ['GET', `/v1/proposals/${p.id}`],
    ['PATCH', `/v1/proposals/${p.id}/status`, { status: 'CANCELED' }],
    ['GET', `/v1/proposals/${p.id}/participants`],
    ['POST', `/v1/proposals/${p.id}/participants`, { document: '11144477735', name: 'X', role: 'SPOUSE' }],
    ['POST', `/v1/proposals/${p.id}/offers/${MISSING}/resend`],
  ] as const) {
    assert.equal((await call(method, path, payload, other.token)).body, notFound, `${method} ${path}`);
  }
  assert.equal((await call('GET', `/v1/proposals/${MISSING}`)).body, notFound);
  assert.is((await call('GET', '/v1/proposals/not-an-id')).status, 400);
  assert.is((await call('POST', `/v1/proposals/${p.id}/offers/zz/choose`, { amountCents: 1, termMonths: 1 })).status, 400);
  const noModule = await provisionTenant(app, { modules: ['reports'] });
  assert.equal((await call('GET', '/v1/proposals', undefined, noModule.token)).body, { code: 403, message: Messages.proposalsModuleDisabled });
  const noPermission = await provisionTenant(app, { permissions: ['can-manage-credit-policy'] });
  assert.equal((await call('GET', '/v1/proposals', undefined, noPermission.token)).body, { code: 403, message: Messages.forbidden });
});

test.run();
