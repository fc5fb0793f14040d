import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY, DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';

const test = suite('GET /v2/report: the organization reports, filtered and paged');
let app: TestApp;
let tenant: TestTenant;
let other: TestTenant;
/** The tenant's reports as GET /v2/report/{id} reads them once decided, newest first as the list orders them. */
let reports: any[];
let otherReportId: string;

const STATUS_VALUES = 'PENDING, PROCESSING, APPROVED, DENIED, MANUAL_ANALYSIS, FAILED';

async function createReport(who: TestTenant, policyId: string, body: Record<string, unknown>) {
  const reply = await app.call('POST', '/v2/report', { token: who.token, body: { ...body, policyId } });
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  return waitForReport(app, who.token, reply.body.id);
}

async function policyOf(who: TestTenant, content: unknown): Promise<string> {
  return (await app.call('POST', '/credit-policy/policy', { token: who.token, body: content })).body.id;
}

test.before(async () => {
  app = await startTestApp();
  tenant = await provisionTenant(app);
  other = await provisionTenant(app, { name: 'Other organization' });
  const cpf = await policyOf(tenant, DEMO_CPF_POLICY);
  const cnpj = await policyOf(tenant, DEMO_CNPJ_POLICY);
  const created = [];
  // Sequential, so that creation times are in this order (ties are broken by id, which also grows).
  created.push(await createReport(tenant, cpf, { document: '123.456.789-09', type: 'cpf', externalId: 'pedido-1' }));
  created.push(await createReport(tenant, cpf, { document: '10000000108', type: 'cpf', externalId: 'pedido-2' }));
  created.push(await createReport(tenant, cnpj, { document: '11222333000181', type: 'cnpj', externalId: 'pedido-1' }));
  created.push(await createReport(tenant, cnpj, { document: '10000001000190', type: 'cnpj' }));
  created.push(await createReport(tenant, cpf, { document: '12345678909', type: 'cpf' }));
  reports = created.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  otherReportId = (await createReport(other, await policyOf(other, DEMO_CPF_POLICY), { document: '12345678909', type: 'cpf', externalId: 'pedido-1' })).id;
});
test.after(async () => {
  await app?.stop();
});

const list = (query: string, who: TestTenant = tenant) => app.call('GET', `/v2/report${query}`, { token: who.token });

async function idsOf(query: string): Promise<string[]> {
  const reply = await list(query);
  assert.is(reply.status, 200, `${query}: ${JSON.stringify(reply.body)}`);
  assert.is(reply.body.total, reply.body.items.length, `${query}: one page holds them all`);
  return reply.body.items.map((item: any) => item.id);
}

const idsWhere = (keep: (report: any) => boolean) => reports.filter(keep).map((r) => r.id);

test('without filters: every report of the organization, newest first, as summaries', async () => {
  const reply = await list('');
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.equal({ ...reply.body, items: undefined }, { total: 5, page: 1, pageSize: 20, nextPage: null, items: undefined });
  assert.equal(
    reply.body.items.map((i: any) => i.id),
    reports.map((r) => r.id),
  );
  const full = reports[0];
  assert.equal(reply.body.items[0], {
    id: full.id,
    status: full.status,
    policyStatus: full.policyStatus,
    policyId: full.policyId,
    policyVersion: full.policyVersion,
    policyName: full.policyName,
    document: full.document,
    type: full.type,
    externalId: full.externalId,
    score: full.score,
    reportProgress: { isFinalized: true, finalizedAt: full.reportProgress.finalizedAt },
    createdAt: full.createdAt,
    updatedAt: full.updatedAt,
  });
});

test('pages do not overlap and nextPage walks them to the end', async () => {
  const seen: string[] = [];
  let page: number | null = 1;
  const pages: Array<number | null> = [];
  while (page !== null) {
    const reply = await list(`?pageSize=2&page=${page}`);
    assert.is(reply.body.total, 5);
    assert.is(reply.body.pageSize, 2);
    seen.push(...reply.body.items.map((i: any) => i.id));
    page = reply.body.nextPage;
    pages.push(page);
  }
  assert.equal(pages, [2, 3, null]);
  assert.equal(
    seen,
    reports.map((r) => r.id),
  );
  const beyond = await list('?page=9&pageSize=2');
  assert.equal(beyond.body, { total: 5, page: 9, pageSize: 2, nextPage: null, items: [] });
});

test('externalId: exact, and another organization with the same externalId is never shown', async () => {
  assert.equal(
    await idsOf('?externalId=pedido-1'),
    idsWhere((r) => r.externalId === 'pedido-1'),
  );
  assert.equal(await idsOf('?externalId=pedido'), []);
  const theirs = await list('?externalId=pedido-1', other);
  assert.equal(
    theirs.body.items.map((i: any) => i.id),
    [otherReportId],
  );
  assert.is(theirs.body.total, 1);
});

test('document: masked or not, digits compared', async () => {
  const expected = idsWhere((r) => r.document === '12345678909');
  assert.is(expected.length, 2);
  assert.equal(await idsOf('?document=123.456.789-09'), expected);
  assert.equal(await idsOf('?document=12345678909'), expected);
  assert.equal(
    await idsOf(`?document=${encodeURIComponent('11.222.333/0001-81')}`),
    idsWhere((r) => r.document === '11222333000181'),
  );
});

test('status: one or several, any case; combined with the other filters', async () => {
  const denied = idsWhere((r) => r.status.value === 'DENIED');
  assert.is(denied.length, 2);
  assert.equal(await idsOf('?status=denied'), denied);
  assert.equal(
    await idsOf('?status=APPROVED,%20Denied'),
    reports.map((r) => r.id),
  );
  assert.equal(await idsOf('?status=PENDING'), []);
  assert.equal(
    await idsOf('?status=DENIED&document=10000000108'),
    idsWhere((r) => r.document === '10000000108'),
  );
  assert.equal(await idsOf('?status=APPROVED&externalId=pedido-2'), []);
});

test('period: from inclusive, to exclusive, by creation time; a day is a day in Brasília', async () => {
  const middle = reports[2];
  assert.equal(
    await idsOf(`?from=${encodeURIComponent(middle.createdAt)}`),
    idsWhere((r) => r.createdAt >= middle.createdAt),
  );
  assert.equal(
    await idsOf(`?to=${encodeURIComponent(middle.createdAt)}`),
    idsWhere((r) => r.createdAt < middle.createdAt),
  );
  // An offset sent without encoding its `+` arrives as a space, and still means +00:00.
  assert.equal(
    await idsOf(`?to=${middle.createdAt.replace('Z', '+00:00')}`),
    idsWhere((r) => r.createdAt < middle.createdAt),
  );
  assert.equal(
    await idsOf(`?from=${encodeURIComponent(reports.at(-1).createdAt)}&to=${encodeURIComponent(middle.createdAt)}`),
    idsWhere((r) => r.createdAt >= reports.at(-1).createdAt && r.createdAt < middle.createdAt),
  );
  // The Brasília day of the first report, and the same instant written with a -03:00 offset.
  const first = new Date(reports.at(-1).createdAt);
  const brasilia = new Date(first.getTime() - 3 * 3_600_000).toISOString();
  const day = brasilia.slice(0, 10);
  assert.equal(
    await idsOf(`?from=${day}`),
    reports.map((r) => r.id),
  );
  assert.equal(await idsOf(`?to=${day}`), []);
  assert.equal(
    await idsOf(`?from=${encodeURIComponent(`${brasilia.slice(0, 23)}-03:00`)}`),
    reports.map((r) => r.id),
  );
});

test('invalid filters: 400 in the contract style, joined by commas', async () => {
  const cases: Array<[string, string]> = [
    ['?pageSize=0', 'pageSize must not be less than 1'],
    ['?pageSize=101', 'pageSize must not be greater than 100'],
    ['?page=0', 'page must not be less than 1'],
    ['?page=abc', 'page must be an integer number'],
    ['?page=1e30', 'page must not be greater than 10000'],
    ['?status=FINISHED', `status must be one of the following values: ${STATUS_VALUES}`],
    ['?status=DENIED,', `status must be one of the following values: ${STATUS_VALUES}`],
    ['?externalId=', 'externalId should not be empty'],
    ['?from=ontem', Messages.dashboardBadFrom],
    ['?to=2026-02-30', Messages.dashboardBadTo],
    ['?from=2026-13-01&to=2026-01-01T25:00:00Z', `${Messages.dashboardBadFrom},${Messages.dashboardBadTo}`],
    ['?from=2026-03-02&to=2026-03-01', Messages.dashboardToBeforeFrom],
    ['?from=2026-03-01&to=2026-03-01', Messages.dashboardToBeforeFrom],
    ['?document=123', Messages.invalidDocument],
    ['?document=12345678900', Messages.invalidDocument],
    ['?pageSize=0&status=x&from=x', `pageSize must not be less than 1,status must be one of the following values: ${STATUS_VALUES},${Messages.dashboardBadFrom}`],
  ];
  for (const [query, message] of cases) {
    const reply = await list(query);
    assert.equal(reply.body, { code: 400, message }, query);
  }
});

test('a token is required', async () => {
  const reply = await app.call('GET', '/v2/report');
  assert.equal(reply.body, { code: 401, message: Messages.invalidToken });
});

test.run();
