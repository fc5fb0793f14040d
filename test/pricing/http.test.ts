import nock from 'nock';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { refreshMarketIndexes } from '../../application/pricing/refresh-job.ts';
import { BcbSgsFeed } from '../../application/pricing/sgs.ts';
import { PricingMessages } from '../../domain/pricing/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { percentOf, plainCetYear, plainDueDates, plainIof, plainPriceRows, pricePayment } from './reference.ts';
import { personalCredit, seedProduct } from '../support/catalog.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { readUntil } from '../support/wait.ts';

const test = suite('pricing: /v1/pricing over HTTP');
let app: TestApp;
let a: TestTenant;
let b: TestTenant;

const simulation = { amountCents: 1_000_000, termMonths: 24, entityType: 'PERSON', releaseDate: '2025-12-31', firstDueDate: '2026-01-31', iof: { applies: false } };

test.before(async () => {
  app = await startTestApp();
  [a, b] = await Promise.all([provisionTenant(app, { name: 'Lender A' }), provisionTenant(app, { name: 'Lender B' })]);
});
test.after(async () => {
  nock.cleanAll();
  await app?.stop();
});

test('without the proposals module every route answers 403 with the contract text', async () => {
  const off = await provisionTenant(app, { name: 'Reports only', modules: ['reports'] });
  for (const [method, path, body] of [
    ['GET', '/v1/pricing/models'],
    ['GET', '/v1/pricing/indexes'],
    ['PUT', '/v1/pricing/indexes/CDI', { percentYear: '14', date: '2026-01-01' }],
    ['POST', '/v1/pricing/simulate', { ...simulation, rateBpsYear: 2682 }],
  ] as const) {
    const reply = await app.call(method, path, { token: off.token, body });
    assert.equal([reply.status, reply.body], [403, { code: 403, message: Messages.proposalsModuleDisabled }], path);
  }
});

test('GET /v1/pricing/models: the models, entity types, indexes and the dated IOF table', async () => {
  const { status, body } = await app.call('GET', '/v1/pricing/models', { token: a.token });
  assert.is(status, 200);
  assert.equal(
    body.models.map((m: { key: string }) => m.key),
    ['PRICE', 'SAC'],
  );
  assert.equal(body.indexes, ['CDI', 'SELIC', 'IPCA']);
  assert.ok(body.iofRates.some((r: { source: string; from: string }) => r.source === 'Decreto 12.499/2025' && r.from === '2025-06-11'));
});

test('indexes: seeded defaults; one organization setting CDI moves only its own prices', async () => {
  const before = await app.call('GET', '/v1/pricing/indexes', { token: b.token });
  assert.equal(
    before.body.map((i: { source: string }) => i.source),
    ['DEFAULT', 'DEFAULT', 'DEFAULT'],
  );

  const set = await app.call('PUT', '/v1/pricing/indexes/CDI', { token: a.token, body: { percentYear: '10.00', date: '2026-11-20', organizationId: b.organizationId } });
  assert.is(set.status, 200);
  assert.equal({ ...set.body, updatedAt: null }, { key: 'CDI', percentYear: '10.00', date: '2026-11-20', source: 'ORGANIZATION', updatedAt: null });

  const indexed = { ...simulation, index: 'CDI', spreadBpsYear: 500 };
  const [simA, simB] = await Promise.all([a, b].map((t) => app.call('POST', '/v1/pricing/simulate', { token: t.token, body: indexed })));
  assert.equal(simA!.body.index, { key: 'CDI', percentYear: '10.00', date: '2026-11-20' });
  assert.equal(simB!.body.index, { key: 'CDI', percentYear: '14.90', date: '2025-10-31' });
  // (1.10)(1.05)-1 = 15.5% a year.
  assert.is(simA!.body.rate.yearlyPercent, '15.50');
  const cdiB = (await app.call('GET', '/v1/pricing/indexes', { token: b.token })).body.find((i: { key: string }) => i.key === 'CDI');
  assert.is(cdiB.source, 'DEFAULT');
});

test('indexes: a Banco Central refresh moves organizations without their own value, not the others', async () => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  try {
    nock('https://bcb.test')
      .get(/bcdata\.sgs\.4389/)
      .query(true)
      .reply(200, [{ data: '20/11/2026', valor: '14.65' }]);
    nock('https://bcb.test')
      .get(/bcdata\.sgs\.432/)
      .query(true)
      .reply(200, [{ data: '20/11/2026', valor: '14.75' }]);
    nock('https://bcb.test')
      .get(/bcdata\.sgs\.13522/)
      .query(true)
      .reply(500);
    assert.is(await refreshMarketIndexes(app.app, new BcbSgsFeed('https://bcb.test', 1000)), 2);
  } finally {
    nock.enableNetConnect();
  }
  // The refresh returns before the projection catches up.
  const ofB: Array<{ source: string; percentYear: string }> = await readUntil(
    async () => (await app.call('GET', '/v1/pricing/indexes', { token: b.token })).body,
    (indexes) => indexes[1]!.source === 'BCB_SGS',
    { what: 'the published indexes listed' },
  );
  assert.equal(
    ofB.map((i) => [i.source, i.percentYear]),
    [
      ['BCB_SGS', '14.65'],
      ['BCB_SGS', '14.75'],
      ['DEFAULT', '4.68'],
    ],
  );
  const ofA = (await app.call('GET', '/v1/pricing/indexes', { token: a.token })).body;
  assert.equal(
    ofA.map((i: { source: string }) => i.source),
    ['ORGANIZATION', 'BCB_SGS', 'DEFAULT'],
  );
});

test('PUT /v1/pricing/indexes/:key: Portuguese 400s, a future date refused, can-manage-operations required', async () => {
  const put = (key: string, body: unknown, token = a.token) => app.call('PUT', `/v1/pricing/indexes/${key}`, { token, body });
  assert.equal((await put('TR', { percentYear: '1', date: '2026-01-01' })).body, { code: 400, message: 'index deve ser CDI, SELIC ou IPCA.' });
  assert.equal((await put('CDI', { percentYear: '-1', date: '2026-01-01' })).body, { code: 400, message: 'percentYear deve ser um percentual decimal, por exemplo "14.90".' });
  assert.equal((await put('CDI', { percentYear: '1', date: '2026-02-30' })).body, { code: 400, message: PricingMessages.invalidIndexDate });
  assert.equal((await put('CDI', { percentYear: '1', date: '2999-01-01' })).body, { code: 400, message: PricingMessages.indexDateInFuture });
  const operator = await provisionTenant(app, { name: 'Operator only', permissions: ['can-generate-report'] });
  assert.is((await put('CDI', { percentYear: '1', date: '2026-01-01' }, operator.token)).status, 403);
  assert.is((await app.call('GET', '/v1/pricing/indexes', { token: operator.token })).status, 200);
});

test('POST /v1/pricing/simulate: 2% a month exactly vs 2682 bps (528.71 vs 528.69), every installment returned', async () => {
  const monthly = await app.call('POST', '/v1/pricing/simulate', { token: a.token, body: { ...simulation, rate: { value: '2', period: 'MONTH' }, userId: 'x', extra: 1 } });
  assert.is(monthly.status, 200);
  assert.is(monthly.body.installments.length, 24);
  assert.is(monthly.body.installments[0].amountCents, 52_871);
  assert.equal(Object.keys(monthly.body.installments[0]).sort(), ['amountCents', 'balanceCents', 'dueDate', 'interestCents', 'iofCents', 'number', 'principalCents']);
  const bps = await app.call('POST', '/v1/pricing/simulate', { token: a.token, body: { ...simulation, rateBpsYear: 2682 } });
  assert.is(bps.body.installments[0].amountCents, 52_869);
  assert.equal(bps.body.iof, null);
});

test('POST /v1/pricing/simulate, the worked example: a first due date one calendar month (31 days) after the release is one plain period', async () => {
  const example = { amountCents: 1_000_000, termMonths: 24, entityType: 'PERSON', releaseDate: '2030-01-15', firstDueDate: '2030-02-15', rate: { value: '2', period: 'MONTH' } };
  const simulate = (body: object) => app.call('POST', '/v1/pricing/simulate', { token: a.token, body: { ...example, ...body } });
  const [price, sac, withIof] = await Promise.all([simulate({ iof: { applies: false } }), simulate({ iof: { applies: false }, model: 'SAC' }), simulate({ iof: { applies: true, financed: false } })]);
  // Expected figures from the textbook formulas (test/pricing/reference.ts), not from the service.
  const dues = plainDueDates('2030-02-15', 24);
  const rows = plainPriceRows(1_000_000, 0.02, 0.02, 24);
  const payments = rows.map((r) => r.interest + r.principal);
  const iof = plainIof(
    rows.map((r) => r.principal),
    '2030-01-15',
    dues,
    0.000082,
    0.0038,
  ).reduce((x, y) => x + y, 0);
  assert.equal(
    [
      Math.round(pricePayment(1_000_000, 0.02, 24)),
      rows.reduce((x, r) => x + r.interest, 0),
      percentOf(plainCetYear(1_000_000, payments, '2030-01-15', dues)),
      percentOf(plainCetYear(1_000_000 - iof, payments, '2030-01-15', dues)),
    ],
    [52_871, 268_907, '26.89', '30.71'],
  );
  assert.equal(
    [price.body.installments[0].amountCents, sac.body.installments[0].amountCents, price.body.totals.interestCents, price.body.cet.yearPercent, withIof.body.cet.yearPercent],
    [52_871, 61_667, 268_907, '26.89', '30.71'],
  );
});

test('POST /v1/pricing/simulate with productKey: the catalog product prices it and its limits apply', async () => {
  await seedProduct(app, a.organizationId, personalCredit());
  const body = { ...simulation, productKey: 'credito-pessoal', rateBpsYear: 1, model: 'SAC' };
  const { status, body: sim } = await app.call('POST', '/v1/pricing/simulate', { token: a.token, body });
  assert.is(status, 200);
  assert.is(sim.model, 'PRICE');
  assert.is(sim.rate.monthlyPercent, '2.00');
  assert.equal(sim.fees, [{ key: 'tac', name: 'Tarifa de cadastro', amountCents: 15_000, financed: true }]);
  assert.is(sim.totals.netReleasedCents, 1_000_000);
  assert.ok(sim.iof.financed && sim.totals.principalCents === 1_000_000 + 15_000 + sim.iof.totalCents);
  // Business-day rule of the product: 2026-01-31 is a Saturday.
  assert.is(sim.installments[0].dueDate, '2026-02-02');

  const otherTenant = await app.call('POST', '/v1/pricing/simulate', { token: b.token, body });
  assert.equal(otherTenant.body, { code: 404, message: PricingMessages.productNotFound });
  const tooLong = await app.call('POST', '/v1/pricing/simulate', { token: a.token, body: { ...body, termMonths: 48 } });
  assert.equal(tooLong.body, { code: 400, message: PricingMessages.termOutOfRange(3, 36) });
  const company = await app.call('POST', '/v1/pricing/simulate', { token: a.token, body: { ...body, entityType: 'COMPANY' } });
  assert.equal(company.body, { code: 400, message: PricingMessages.entityTypeNotServed });
});

test('POST /v1/pricing/simulate: every refusal is a 400 with a Portuguese text', async () => {
  const cases: Array<[unknown, string]> = [
    [{ ...simulation }, PricingMessages.rateMissing],
    [{ ...simulation, rateBpsYear: 2682, rate: { value: '2', period: 'MONTH' } }, PricingMessages.rateAmbiguous],
    [{ ...simulation, rateBpsYear: 2682, amountCents: 0 }, 'amountCents deve ser um inteiro entre 1 e 100000000000 (centavos).'],
    [{ ...simulation, rateBpsYear: 2682, termMonths: 601 }, 'termMonths deve ser um inteiro entre 1 e 600 (meses).'],
    [{ ...simulation, rateBpsYear: 2682, entityType: 'ALIEN' }, 'entityType deve ser COMPANY ou PERSON.'],
    [{ ...simulation, rateBpsYear: 2682, model: 'GERMAN' }, 'model deve ser PRICE ou SAC.'],
    [{ ...simulation, rate: { value: 'dois', period: 'MONTH' } }, 'rate.value deve ser um percentual decimal, por exemplo "14.90".'],
    [{ ...simulation, rate: { value: '2', period: 'DAY' } }, 'rate.period deve ser MONTH ou YEAR.'],
    [{ ...simulation, rateBpsYear: 2682, releaseDate: '01/01/2026' }, 'releaseDate deve ser uma data no formato AAAA-MM-DD.'],
    [{ ...simulation, rateBpsYear: 2682, firstDueDate: '2026-02-31' }, PricingMessages.invalidFirstDueDate],
    [{ ...simulation, rateBpsYear: 2682, firstDueDate: simulation.releaseDate }, PricingMessages.firstDueDateRange],
    [{ ...simulation, rateBpsYear: 2682, fees: [{ key: 'x', name: 'Tudo', percentBps: 10_000, financed: false }] }, PricingMessages.feesExceedAmount],
  ];
  for (const [body, message] of cases) {
    const reply = await app.call('POST', '/v1/pricing/simulate', { token: a.token, body });
    assert.equal(reply.body, { code: 400, message }, JSON.stringify(body));
  }
});

test.run();
