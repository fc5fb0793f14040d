import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DashboardMessages as D } from '../../domain/dashboard/messages.ts';
import { endOfBrasiliaDay, filtersKey, parseDashboardFilters, parseDashboardQuery, parseIsoInstant, type DashboardQueryInput } from '../../domain/dashboard/filters.ts';
import { Messages as M } from '../../domain/shared/messages.ts';

const test = suite('dashboard filters');
// 22:30 in Brasília on Nov 23 (01:30 UTC on the 24th): "today" is still the 23rd there.
const NOW = new Date('2026-11-24T01:30:00.000Z');

const error = (query: DashboardQueryInput, options = true) => {
  const parsed = options ? parseDashboardQuery(query, NOW) : parseDashboardFilters(query, NOW);
  assert.not.ok(parsed.ok, `expected a refusal of ${JSON.stringify(query)}`);
  return (parsed as { message: string }).message;
};
const value = (query: DashboardQueryInput) => {
  const parsed = parseDashboardQuery(query, NOW);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
};

test('defaults: to is the end of today in Brasília, from 30 days before, compare true, dim correspondent, the default sla', () => {
  assert.equal(value({}), {
    from: '2026-10-25T03:00:00.000Z',
    to: '2026-11-24T03:00:00.000Z',
    compare: true,
    dim: 'correspondent',
    sla: { WAITING_OPERATOR: 2, IN_ANALYSIS: 1, WAITING_CUSTOMER: 7 },
  });
  assert.is(endOfBrasiliaDay(new Date('2026-11-24T03:00:00.000Z')).toISOString(), '2026-11-25T03:00:00.000Z');
});

test('dates: a day or a time without an offset is Brasília time; offsets and Z are honoured; impossible dates are refused', () => {
  assert.is(parseIsoInstant('2026-11-01')?.toISOString(), '2026-11-01T03:00:00.000Z');
  assert.is(parseIsoInstant('2026-11-01T10:15')?.toISOString(), '2026-11-01T13:15:00.000Z');
  assert.is(parseIsoInstant('2026-11-01T10:15:00Z')?.toISOString(), '2026-11-01T10:15:00.000Z');
  assert.is(parseIsoInstant('2026-11-01T10:15:00.5+01:00')?.toISOString(), '2026-11-01T09:15:00.500Z');
  // A summer-time day of 2018 (UTC-2) still resolves through the zone's rules.
  assert.is(parseIsoInstant('2018-12-01')?.toISOString(), '2018-12-01T02:00:00.000Z');
  for (const bad of ['2026-02-30', '2026-13-01', '01/11/2026', '2026-11-01T25:00', 'ontem', '']) assert.is(parseIsoInstant(bad), null, bad);
});

test('period: every 400 text of from, to, their order and the 366 days', () => {
  assert.is(error({ from: 'x' }), M.dashboardBadFrom);
  assert.is(error({ from: ['2026-01-01', '2026-02-01'] }), M.dashboardBadFrom);
  assert.is(error({ to: '2026-11-31' }), M.dashboardBadTo);
  assert.is(error({ from: '2026-11-10', to: '2026-11-10' }), M.dashboardToBeforeFrom);
  assert.is(error({ from: '2026-11-10', to: '2026-11-01' }), M.dashboardToBeforeFrom);
  assert.is(error({ from: '2025-01-01', to: '2026-01-03' }), M.dashboardMaxPeriod);
  assert.equal(value({ from: '2025-01-01', to: '2026-01-02' }).to, '2026-01-02T03:00:00.000Z');
  // Without from, the default 30 days run back from the given to.
  assert.is(value({ to: '2026-06-01T00:00:00Z' }).from, '2026-05-02T00:00:00.000Z');
});

test('lists: every 400 text, commas and repeats, 2000 characters, duplicates and blanks', () => {
  assert.is(error({ origin: 'API,FAX' }), D.badOrigin);
  assert.is(error({ correspondentId: 'not-an-id' }), D.badCorrespondent);
  assert.is(error({ agentId: 'not-an-id' }), D.badAgent);
  assert.equal(value({ correspondentId: `${'c1'.repeat(12)},${'C2'.repeat(12)}`, agentId: 'a1'.repeat(12) }).agentId, ['a1'.repeat(12)]);
  assert.is(error({ productKey: 'Capital Giro' }), M.invalidProduct);
  assert.is(error({ portfolioId: 'abc' }), D.badPortfolio);
  assert.is(error({ entityType: 'COMPANY,ALIEN' }), D.badEntityType);
  assert.is(error({ status: 'DRAFT,OPEN' }), D.badStatus);
  assert.is(error({ correspondentId: Array.from({ length: 90 }, (_, i) => String(i).padStart(24, '0')).join(',') }), D.badCorrespondent);
  const ok = value({ origin: ['API', 'CHANNEL,API'], status: ' DRAFT , ,ISSUED', productKey: '', entityType: 'PERSON' });
  assert.equal(ok.origin, ['API', 'CHANNEL']);
  assert.equal(ok.status, ['DRAFT', 'ISSUED']);
  assert.is(ok.productKey, undefined);
  assert.equal(ok.entityType, ['PERSON']);
});

test('compare, dim and sla: their texts and values; sla overrides or adds to the default', () => {
  assert.is(error({ compare: 'yes' }), D.badCompare);
  assert.is(value({ compare: 'false' }).compare, false);
  assert.is(error({ dim: 'city' }), D.badDim);
  assert.is(value({ dim: 'entityType' }).dim, 'entityType');
  for (const bad of ['WAITING_OPERATOR', 'WAITING_OPERATOR:1000', 'ISSUED:2', 'DRAFT:-1', 'DRAFT:2;IN_ANALYSIS:1', 'DRAFT:2,']) assert.is(error({ sla: bad }), D.badSla, bad);
  assert.equal(value({ sla: 'DRAFT:3,WAITING_OPERATOR:10' }).sla, { WAITING_OPERATOR: 10, IN_ANALYSIS: 1, WAITING_CUSTOMER: 7, DRAFT: 3 });
});

test('several bad parameters: the first in the spec order of messages wins', () => {
  const all = {
    from: 'x',
    to: 'y',
    compare: 'maybe',
    origin: 'FAX',
    correspondentId: '\u0000',
    agentId: '\u0000',
    productKey: ' X ',
    portfolioId: 'p',
    entityType: 'E',
    status: 'S',
    dim: 'd',
    sla: 's',
  };
  const order = [M.dashboardBadFrom, M.dashboardBadTo, D.badCompare, D.badOrigin, D.badCorrespondent, D.badAgent, M.invalidProduct, D.badPortfolio, D.badEntityType, D.badStatus, D.badDim, D.badSla];
  const keys = Object.keys(all) as Array<keyof typeof all>;
  const query: Record<string, string> = { ...all };
  for (const [i, expected] of order.entries()) {
    assert.is(error(query), expected, `step ${i}`);
    delete query[keys[i]!];
  }
  assert.ok(parseDashboardQuery(query, NOW).ok);
});

test('the export reads only the filters: compare, dim and sla are not its parameters', () => {
  const parsed = parseDashboardFilters({ compare: 'maybe', dim: 'x', sla: 'y', status: 'DRAFT' }, NOW);
  assert.equal(parsed, { ok: true, value: { from: '2026-10-25T03:00:00.000Z', to: '2026-11-24T03:00:00.000Z', status: ['DRAFT'] } });
  assert.is(error({ status: 'NOPE' }, false), D.badStatus);
});

test('filtersKey: the same filters in another order share a key; other filters do not', () => {
  const a = value({ origin: 'API,CRM', status: 'DRAFT' });
  const b = value({ status: 'DRAFT', origin: 'CRM,API' });
  assert.is(filtersKey(a), filtersKey(b));
  assert.is.not(filtersKey(a), filtersKey(value({ origin: 'API' })));
  assert.is.not(filtersKey(a, { dim: 'agent' }), filtersKey(a, { dim: 'product' }));
});

test.run();
