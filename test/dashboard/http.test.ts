import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DashboardMessages } from '../../domain/dashboard/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import type { TestApp } from '../support/app.ts';
import { personalCredit, seedPortfolio, seedProduct } from '../support/catalog.ts';
import { provisionTenant, serviceWithTenant } from '../support/identity.ts';
import { A2, C1, C2, NOW, dashboardSet, seedProposals } from './seed.ts';

const test = suite('management dashboard: every block against a hand-computed set');
let app: TestApp;
let ids: Record<string, string>;
let organizationId: string;

const call = serviceWithTenant(test, async (a, tenant) => {
  app = a;
  app.app.clock = { now: () => new Date(NOW) };
  organizationId = tenant.organizationId;
  await seedProduct(app, tenant.organizationId);
  await seedProduct(app, tenant.organizationId, personalCredit({ key: 'capital-giro', name: 'Capital de giro', entityTypes: ['COMPANY'] }));
  const portfolioId = await seedPortfolio(app, tenant.organizationId);
  ids = await seedProposals(app, tenant.organizationId, dashboardSet(portfolioId));
  // Another organization's proposal in the same period counts nowhere.
  const other = await provisionTenant(app, { name: 'Other' });
  await seedProposals(app, other.organizationId, [{ name: 'X', createdAt: '2026-11-05T12:00:00Z', origin: 'API', requested: 1 }]);
});

/** The two weeks from Monday 2 to Sunday 15 November 2026 in Brasília; the comparison: 19 October to 1 November. */
const PERIOD = 'from=2026-11-02&to=2026-11-16';
const get = async (query: string) => {
  const reply = await call('GET', `/v1/proposals/dashboard?${query}`);
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  return reply.body;
};
const weeks12 = (tail: number[]) => [...Array(12 - tail.length).fill(0), ...tail];

test('range: Brasília days and Mondays, the comparison period, 12 weeks of series', async () => {
  const { range } = await get(PERIOD);
  assert.equal(
    { from: range.from, to: range.to, prevFrom: range.prevFrom, prevTo: range.prevTo },
    { from: '2026-11-02T03:00:00.000Z', to: '2026-11-16T03:00:00.000Z', prevFrom: '2026-10-19T03:00:00.000Z', prevTo: '2026-11-02T03:00:00.000Z' },
  );
  assert.is(range.weekStarts.length, 12);
  assert.is(range.weekStarts[0], '2026-08-24T03:00:00.000Z');
  assert.is(range.weekStarts[11], '2026-11-09T03:00:00.000Z');
  const defaults = (await get('')).range;
  assert.is(defaults.to, '2026-11-19T03:00:00.000Z', 'the end of today in Brasília');
  assert.is(defaults.from, '2026-10-20T03:00:00.000Z', '30 days before');
});

test('kpis cur and prev: the nine indicators', async () => {
  const { kpis } = await get(PERIOD);
  assert.equal(kpis.cur, {
    received: 8,
    requestedCents: 6_100_000,
    approvalRate: 0.75,
    issuedOfferedCents: 800_000,
    ticketCents: 762_500,
    timeToOfferDays: 5,
    conversion: 0.125,
    openNow: 3,
    outOfSla: 2,
  });
  assert.equal(kpis.prev, { received: 2, requestedCents: 900_000, approvalRate: 1, issuedOfferedCents: 300_000, ticketCents: 450_000, timeToOfferDays: 5, conversion: 0.5, openNow: 0, outOfSla: 0 });
});

test('weekly, statusWeekly: by creation week in Brasília (Sunday 23:30 is the week before)', async () => {
  const { weekly, statusWeekly } = await get(PERIOD);
  assert.equal(weekly.cur.received, weeks12([1, 1, 3, 5]));
  assert.equal(weekly.cur.openNow, weeks12([0, 0, 1, 2]));
  assert.equal(weekly.cur.outOfSla, weeks12([0, 0, 1, 1]));
  assert.equal(weekly.cur.issuedOfferedCents, weeks12([300_000, 0, 800_000, 0]));
  assert.equal(weekly.prev.received, weeks12([1, 1]));
  assert.equal(statusWeekly.slice(8), [
    { weekStart: '2026-10-19T03:00:00.000Z', issued: 1, open: 0, rejected: 0, closed: 0 },
    { weekStart: '2026-10-26T03:00:00.000Z', issued: 0, open: 1, rejected: 0, closed: 0 },
    { weekStart: '2026-11-02T03:00:00.000Z', issued: 1, open: 1, rejected: 1, closed: 0 },
    { weekStart: '2026-11-09T03:00:00.000Z', issued: 0, open: 3, rejected: 0, closed: 2 },
  ]);
});

test('funnel: stages reached, requested value through stage 2, offered from stage 3', async () => {
  const { funnel } = await get(PERIOD);
  const stages = (rows: Array<[number, number]>) => rows.map(([count, valueCents], stage) => ({ stage, count, valueCents }));
  assert.equal(
    funnel.cur,
    stages([
      [8, 6_100_000],
      [4, 3_900_000],
      [3, 1_900_000],
      [1, 800_000],
      [1, 800_000],
      [1, 800_000],
    ]),
  );
  assert.equal(
    funnel.prev,
    stages([
      [2, 900_000],
      [1, 400_000],
      [1, 400_000],
      [1, 300_000],
      [1, 300_000],
      [1, 300_000],
    ]),
  );
});

test('breakdown by correspondent: null key group, most received first, 12 weeks received', async () => {
  const { breakdown } = await get(PERIOD);
  assert.is(breakdown.dim, 'correspondent');
  assert.equal(
    breakdown.rows.map((r: any) => [r.key, r.label, r.cur.received, r.prev.received]),
    [
      [C1, null, 3, 1],
      [C2, null, 3, 1],
      [null, null, 2, 0],
    ],
  );
  const [c1, c2, none] = breakdown.rows;
  assert.equal(c1.cur, { received: 3, requestedCents: 2_200_000, approvalRate: 1, issuedOfferedCents: 800_000, ticketCents: 733_333, timeToOfferDays: 5, conversion: 0.3333, openNow: 0, outOfSla: 0 });
  assert.equal(c2.cur, { received: 3, requestedCents: 1_200_000, approvalRate: 1, issuedOfferedCents: 0, ticketCents: 400_000, timeToOfferDays: 0, conversion: 0, openNow: 2, outOfSla: 1 });
  assert.equal(c2.prev, { received: 1, requestedCents: 400_000, approvalRate: 1, issuedOfferedCents: 300_000, ticketCents: 400_000, timeToOfferDays: 5, conversion: 1, openNow: 0, outOfSla: 0 });
  assert.equal(none.cur, { received: 2, requestedCents: 2_700_000, approvalRate: 0, issuedOfferedCents: 0, ticketCents: 1_350_000, timeToOfferDays: 0, conversion: 0, openNow: 1, outOfSla: 1 });
  assert.equal([c1.weekly, c2.weekly, none.weekly], [weeks12([1, 1, 2]), weeks12([1, 0, 1, 2]), weeks12([1, 1])]);
  const byProduct = (await get(`${PERIOD}&dim=product`)).breakdown.rows;
  assert.equal(
    byProduct.map((r: any) => [r.key, r.label, r.cur.received]),
    [
      ['credito-pessoal', 'Crédito pessoal', 7],
      ['capital-giro', 'Capital de giro', 1],
    ],
  );
  const byPortfolio = (await get(`${PERIOD}&dim=portfolio`)).breakdown.rows;
  assert.equal(
    byPortfolio.map((r: any) => [r.label, r.cur.received]),
    [
      ['Varejo', 6],
      [null, 2],
    ],
  );
  const byOrigin = (await get(`${PERIOD}&dim=origin`)).breakdown.rows;
  assert.equal(
    byOrigin.map((r: any) => [r.key, r.label, r.cur.received]),
    [
      ['API', null, 3],
      ['BATCH', null, 1],
      ['CHANNEL', null, 1],
      ['CRM', null, 1],
      ['OPERATOR', null, 1],
      ['PUBLIC_FORM', null, 1],
    ],
  );
});

test('mix, offers, rejections, cycle', async () => {
  const body = await get(PERIOD);
  assert.equal(body.mix, [
    { productKey: 'credito-pessoal', productName: 'Crédito pessoal', count: 7, requestedCents: 4_100_000 },
    { productKey: 'capital-giro', productName: 'Capital de giro', count: 1, requestedCents: 2_000_000 },
  ]);
  assert.equal(body.offers, { firm: 1, chosen: 1, expiredWithoutChoice: 1, chosenAmountCents: 800_000, requestedOfChosenCents: 1_000_000, byCustomer: 1, byOperator: 0 });
  assert.equal(body.rejections, { total: 1, requestedCents: 2_000_000, rows: [{ step: 'politica', count: 1 }] });
  assert.equal(body.cycle, [
    { pair: 'RECEIVED_ANALYZED', medianDays: 0, p90Days: 7, n: 4 },
    { pair: 'ANALYZED_PREAPPROVED', medianDays: 0, p90Days: 0, n: 3 },
    { pair: 'PREAPPROVED_FIRM', medianDays: 3, p90Days: 3, n: 1 },
    { pair: 'FIRM_CHOSEN', medianDays: 0, p90Days: 0, n: 0 },
    { pair: 'CHOSEN_ISSUED', medianDays: 2, p90Days: 2, n: 1 },
  ]);
  // From June: P10 was analyzed 132 days after its creation, counted in the last bucket.
  const long = await get('from=2026-06-01&to=2026-11-16');
  assert.equal(long.cycle[0], { pair: 'RECEIVED_ANALYZED', medianDays: 1, p90Days: 120, n: 6 });
});

test('aging: open now whatever the period, by days in the current state; the five oldest; sla naming DRAFT', async () => {
  const { aging } = await get(PERIOD);
  assert.equal(aging.rows, [
    { status: 'IN_ANALYSIS', slaDays: 1, upTo2: 0, upTo7: 0, over7: 1, total: 1, outOfSla: 1 },
    { status: 'WAITING_OPERATOR', slaDays: 2, upTo2: 0, upTo7: 1, over7: 0, total: 1, outOfSla: 1 },
    { status: 'WAITING_CUSTOMER', slaDays: 7, upTo2: 1, upTo7: 0, over7: 0, total: 1, outOfSla: 0 },
  ]);
  assert.equal(
    aging.oldest.map((p: any) => [p.name, p.days, p.status]),
    [
      ['P4', 14, 'IN_ANALYSIS'],
      ['P6', 6, 'WAITING_OPERATOR'],
      ['P5', 1, 'WAITING_CUSTOMER'],
    ],
  );
  assert.equal(aging.oldest[0], { id: ids.P4, name: 'P4', document: '12345678909', status: 'IN_ANALYSIS', days: 14, correspondentId: C2, origin: 'OPERATOR' });
  const draft = await get(`${PERIOD}&sla=DRAFT:3`);
  assert.equal(draft.aging.rows[0], { status: 'DRAFT', slaDays: 3, upTo2: 1, upTo7: 0, over7: 2, total: 3, outOfSla: 2 });
  assert.equal(
    draft.aging.oldest.map((p: any) => p.name),
    ['P10', 'P2', 'P4', 'P6', 'P9'],
  );
  assert.equal([draft.kpis.cur.openNow, draft.kpis.cur.outOfSla, draft.kpis.prev.openNow, draft.kpis.prev.outOfSla], [4, 2, 1, 1]);
  const tight = await get(`${PERIOD}&sla=DRAFT:2,WAITING_CUSTOMER:0`);
  assert.equal([tight.kpis.cur.openNow, tight.kpis.cur.outOfSla], [4, 4], 'P9 past 2 days in DRAFT, P5 past 0 days waiting');
});

test('filters: CHANNEL only as CHANNEL, lists, status; compare=false zeroes prev', async () => {
  assert.is((await get(`${PERIOD}&origin=CHANNEL`)).kpis.cur.received, 1);
  const api = await get(`${PERIOD}&origin=API`);
  assert.equal([api.kpis.cur.received, api.kpis.prev.received], [3, 2], 'P1 is CHANNEL, not API');
  const c1 = await get(`${PERIOD}&correspondentId=${C1},${'c9'.repeat(12)}&compare=false`);
  assert.equal(
    [c1.kpis.cur.received, c1.kpis.prev, c1.funnel.prev[0].count, c1.weekly.prev.received],
    [3, { received: 0, requestedCents: 0, approvalRate: 0, issuedOfferedCents: 0, ticketCents: 0, timeToOfferDays: 0, conversion: 0, openNow: 0, outOfSla: 0 }, 0, weeks12([])],
  );
  const rejected = await get(`${PERIOD}&status=REJECTED,CANCELED`);
  assert.equal([rejected.kpis.cur.received, rejected.kpis.cur.openNow, rejected.aging.rows.map((r: any) => r.total)], [2, 0, [0, 0, 0]]);
  const company = await get(`${PERIOD}&entityType=COMPANY&productKey=capital-giro`);
  assert.equal([company.kpis.cur.received, company.mix.length], [1, 1]);
  assert.is((await get(`${PERIOD}&agentId=${A2}`)).kpis.cur.received, 3);
});

test('the rollups and the facts agree: a filter that keeps everything, and a boundary inside a day', async () => {
  const strip = ({ generatedAt: _g, ...rest }: any) => rest;
  const rollups = strip(await get(`${PERIOD}&dim=agent`));
  const facts = strip(await get(`${PERIOD}&dim=agent&entityType=PERSON,COMPANY`));
  assert.equal(facts, rollups);
  const cut = await get('from=2026-11-02T01:00:00-03:00&to=2026-11-15T19:00:00-03:00');
  assert.equal([cut.kpis.cur.received, cut.kpis.prev.received], [6, 3], 'P1 (00:30) and P9 (20:00 on the 15th) are out; P1, P2 and P11 are the comparison');
});

test('identical queries within 60 seconds answer the same result; another query is computed', async () => {
  const first = await get(`${PERIOD}&dim=entityType`);
  await seedProposals(app, organizationId, [{ name: 'P12', createdAt: '2026-11-05T12:00:00Z', origin: 'API', requested: 1 }]);
  assert.equal(await get(`dim=entityType&${PERIOD}`), first);
  const other = await get(`${PERIOD}&dim=entityType&compare=true`);
  assert.equal(other, first, 'compare=true is the default: the same query');
  assert.is((await get(`${PERIOD}&dim=agent&compare=false`)).kpis.cur.received, 9);
});

test('400 texts of every parameter', async () => {
  const cases: Array<[string, string]> = [
    ['from=ontem', Messages.dashboardBadFrom],
    ['to=2026-02-30', Messages.dashboardBadTo],
    ['from=2026-11-02&to=2026-11-02', Messages.dashboardToBeforeFrom],
    ['from=2025-01-01&to=2026-11-16', Messages.dashboardMaxPeriod],
    ['compare=talvez', DashboardMessages.badCompare],
    ['origin=API,LOJA', DashboardMessages.badOrigin],
    [`correspondentId=${'x'.repeat(2001)}`, DashboardMessages.badCorrespondent],
    ['correspondentId=not-an-id', DashboardMessages.badCorrespondent],
    [`correspondentId=${C1},c1`, DashboardMessages.badCorrespondent],
    [`agentId=${'a,'.repeat(1001)}`, DashboardMessages.badAgent],
    ['agentId=not-an-id', DashboardMessages.badAgent],
    ['productKey=NÃO', Messages.invalidProduct],
    ['portfolioId=abc', DashboardMessages.badPortfolio],
    ['entityType=PJ', DashboardMessages.badEntityType],
    ['status=OPEN', DashboardMessages.badStatus],
    ['dim=city', DashboardMessages.badDim],
    ['sla=OPEN:2', DashboardMessages.badSla],
    ['sla=DRAFT:1000', DashboardMessages.badSla],
    ['from=x&status=OPEN&dim=city', Messages.dashboardBadFrom],
    ['status=OPEN&dim=city', DashboardMessages.badStatus],
  ];
  for (const [query, message] of cases) {
    const reply = await call('GET', `/v1/proposals/dashboard?${query}`);
    assert.equal([reply.status, reply.body], [400, { code: 400, message }], query);
  }
});

test('502 when a query passes its statement timeout (waiting on a lock), not a hang', async () => {
  const timeout = app.app.config.DASHBOARD_STATEMENT_TIMEOUT_MS;
  app.app.config.DASHBOARD_STATEMENT_TIMEOUT_MS = 200;
  const locker = await app.database.knex.transaction();
  try {
    await locker.raw('lock table proposal_facts in access exclusive mode');
    const reply = await call('GET', `/v1/proposals/dashboard?${PERIOD}&dim=portfolio&compare=false`);
    assert.equal([reply.status, reply.body], [502, { code: 502, message: Messages.dashboardLoadFailed }]);
  } finally {
    await locker.rollback();
    app.app.config.DASHBOARD_STATEMENT_TIMEOUT_MS = timeout;
  }
  assert.is((await get(`${PERIOD}&dim=portfolio&compare=false`)).kpis.cur.received, 9, 'a failure is not cached');
});

test.run();
