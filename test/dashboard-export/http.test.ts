import ExcelJS from 'exceljs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { issueFirmOffer, recordDecision, sendIndicativeOffer, startAnalysis, chooseOffer, closeProposal } from '../../application/proposal/commands.ts';
import { DashboardMessages } from '../../domain/dashboard/messages.ts';
import { filtersKey, parseDashboardFilters } from '../../domain/dashboard/filters.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { PROPOSAL_PROJECTION } from '../../projections/proposal/projection.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { seedPortfolio, seedProduct } from '../support/catalog.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { seedProposalFacts } from '../support/proposal-facts.ts';
import { eventually } from '../support/wait.ts';

const test = suite('dashboard export rows');
// Long enough that a held lock below never times out the concurrent exports, short enough for the 502 case.
const TIMEOUT_MS = 5000;
let app: TestApp;
let tenant: TestTenant;
let bulk: TestTenant;
let portfolioId: string;
const PERIOD = 'from=2026-01-01T00:00:00Z&to=2026-12-31T00:00:00Z';
const BULK_NEWEST = '2026-06-01T12:00:00.000Z';

const get = (path: string, token = tenant.token, headers: Record<string, string> = {}) => app.call('GET', path, { token, headers });
const runs = () => app.app.db('dashboard_export_runs');

test.before(async () => {
  app = await startTestApp({ DASHBOARD_EXPORT_TIMEOUT_MS: String(TIMEOUT_MS) });
  tenant = await provisionTenant(app);
  bulk = await provisionTenant(app, { name: 'Bulk' });
  await seedProduct(app, tenant.organizationId);
  portfolioId = await seedPortfolio(app, tenant.organizationId);
  await seedProposalFacts(app.app.db, bulk.organizationId, 5001, BULK_NEWEST);
});
test.after(async () => {
  await app?.stop();
});

const create = async (extra: Record<string, unknown>) => {
  const reply = await app.call('POST', '/v1/proposals', {
    token: tenant.token,
    body: { document: '123.456.789-09', name: 'Maria', productKey: 'credito-pessoal', requestedAmountCents: 1_000_000, requestedTermMonths: 12, ...extra },
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return reply.body.id as string;
};
const CORRESPONDENT = 'c9'.repeat(12);
const AGENT = 'a1'.repeat(12);
const offer = { rateBpsYear: 2400, model: 'PRICE' as const, validUntil: '2099-01-01T00:00:00.000Z' };

test('field rules: CHANNEL origin, last firm value, last chosen value, latest decision, first analyzed/pre-approved/firm times, last chosen time', async () => {
  const id = await create({ origin: 'CHANNEL', correspondentId: CORRESPONDENT, agentId: AGENT, portfolioId });
  const step = { organizationId: tenant.organizationId, proposalId: id, executionId: 'e00000000000000000000001' };
  await startAnalysis(app.app, { ...step, kind: 'REPORT', targetId: 'f00000000000000000000001', at: '2026-03-01T10:00:00.000Z' });
  await recordDecision(app.app, { ...step, decision: 'APPROVED', step: null, at: '2026-03-01T11:00:00.000Z' });
  const range = { minAmountCents: 100_000, maxAmountCents: 1_000_000, minTermMonths: 6, maxTermMonths: 24 };
  const first = await sendIndicativeOffer(app.app, { ...step, offer: { ...offer, ...range }, at: '2026-03-02T10:00:00.000Z' });
  await chooseOffer(app.app, { organizationId: tenant.organizationId, userId: tenant.userId }, { proposalId: id, offerId: first.offerId, amountCents: 500_000, termMonths: 12, by: 'OPERATOR' });
  const second = await sendIndicativeOffer(app.app, { ...step, offer: { ...offer, ...range }, at: '2026-03-03T10:00:00.000Z' });
  await chooseOffer(app.app, { organizationId: tenant.organizationId, userId: tenant.userId }, { proposalId: id, offerId: second.offerId, amountCents: 700_000, termMonths: 12, by: 'OPERATOR' });
  await issueFirmOffer(app.app, { ...step, ...offer, amountCents: 650_000, termMonths: 12, at: '2026-03-04T10:00:00.000Z' });
  await issueFirmOffer(app.app, { ...step, ...offer, amountCents: 600_000, termMonths: 12, at: '2026-03-05T10:00:00.000Z' });
  const closed = await closeProposal(app.app, { ...step, status: 'ISSUED', date: '2026-03-06', at: '2026-03-06T10:00:00.000Z' });
  const rejected = await create({ origin: 'API' });
  const rejectStep = { organizationId: tenant.organizationId, proposalId: rejected, executionId: 'e00000000000000000000002' };
  await recordDecision(app.app, { ...rejectStep, decision: 'APPROVED', step: null, at: '2026-03-01T09:00:00.000Z' });
  const last = await recordDecision(app.app, { ...rejectStep, decision: 'REJECTED', step: 'policy', at: '2026-03-07T09:00:00.000Z' });
  await app.app.readYourWrites([PROPOSAL_PROJECTION], last.position ?? closed.position);

  const reply = await get('/v1/proposals/dashboard/rows');
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.is(reply.body.maxRows, 5000);
  assert.is(reply.body.truncated, false);
  assert.equal(
    reply.body.rows.map((r: any) => r.id),
    [rejected, id],
    'newest first',
  );
  const row = reply.body.rows[1];
  const chosenAt = row.chosenAt;
  assert.equal(row, {
    id,
    createdAt: row.createdAt,
    document: '12345678909',
    name: 'Maria',
    entityType: 'PERSON',
    origin: 'CHANNEL',
    correspondentId: CORRESPONDENT,
    agentId: AGENT,
    productKey: 'credito-pessoal',
    productName: 'Crédito pessoal',
    portfolioName: 'Varejo',
    status: 'ISSUED',
    requestedCents: 1_000_000,
    firmCents: 600_000,
    chosenCents: 700_000,
    decision: 'APPROVED',
    rejectionStep: null,
    analyzedAt: '2026-03-01T11:00:00.000Z',
    preApprovedAt: '2026-03-02T10:00:00.000Z',
    firmOfferAt: '2026-03-04T10:00:00.000Z',
    chosenAt,
    issuedAt: '2026-03-06T10:00:00.000Z',
    statusChangedAt: '2026-03-06T10:00:00.000Z',
  });
  assert.ok(chosenAt >= row.createdAt, 'the last choice, made after creation');
  assert.equal([reply.body.rows[0].decision, reply.body.rows[0].rejectionStep, reply.body.rows[0].status], ['REJECTED', 'policy', 'REJECTED'], 'the latest decision');
  assert.equal(
    (await get('/v1/proposals/dashboard/rows?origin=CHANNEL')).body.rows.map((r: any) => r.id),
    [id],
    'CHANNEL only as CHANNEL',
  );
  assert.equal(
    (await get('/v1/proposals/dashboard/rows?origin=API,OPERATOR&compare=whatever&dim=x&sla=y')).body.rows.map((r: any) => r.id),
    [rejected],
    'compare, dim and sla do not change rows',
  );
});

test('the shared 400 texts, the format parameter, another tenant sees nothing', async () => {
  assert.equal((await get('/v1/proposals/dashboard/rows?from=ontem')).body, { code: 400, message: Messages.dashboardBadFrom });
  assert.equal((await get('/v1/proposals/dashboard/rows?from=2025-01-01&to=2026-06-01')).body, { code: 400, message: Messages.dashboardMaxPeriod });
  assert.equal((await get('/v1/proposals/dashboard/rows?status=OPEN&origin=FAX')).body, { code: 400, message: DashboardMessages.badOrigin });
  assert.equal((await get('/v1/proposals/dashboard/rows?correspondentId=not-an-id')).body, { code: 400, message: DashboardMessages.badCorrespondent });
  assert.equal((await get('/v1/proposals/dashboard/rows?agentId=not-an-id')).body, { code: 400, message: DashboardMessages.badAgent });
  assert.equal((await get('/v1/proposals/dashboard/rows?format=pdf')).body.code, 400);
  const other = await provisionTenant(app, { name: 'Other' });
  assert.equal((await get('/v1/proposals/dashboard/rows', other.token)).body.rows, []);
  const noModule = await provisionTenant(app, { name: 'No proposals', modules: ['reports'] });
  assert.equal((await get('/v1/proposals/dashboard/rows', noModule.token)).body, { code: 403, message: Messages.proposalsModuleDisabled });
});

test('CSV: ; separated, CRLF, UTF-8 BOM, field names as header, formulas defused; by format or Accept', async () => {
  const id = await create({ name: '=HYPERLINK("http://x";"ç")', origin: 'OPERATOR' });
  await eventually(async () => (await get('/v1/proposals/dashboard/rows')).body.rows.some((r: any) => r.id === id), { timeoutMs: 10_000, what: 'the new proposal in the facts' });
  for (const reply of [await get('/v1/proposals/dashboard/rows?format=csv'), await get('/v1/proposals/dashboard/rows', tenant.token, { accept: 'text/csv' })]) {
    assert.is(reply.status, 200);
    assert.is(reply.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match(reply.headers.get('content-disposition')!, /^attachment; filename="painel-propostas_\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}\.csv"$/);
    assert.is(reply.headers.get('x-export-truncated'), 'false');
    const text = reply.body as string;
    const lines = text.replace(/^\uFEFF/, '').split('\r\n');
    assert.is(
      lines[0],
      'id;createdAt;document;name;entityType;origin;correspondentId;agentId;productKey;productName;portfolioName;status;requestedCents;firmCents;chosenCents;decision;rejectionStep;analyzedAt;preApprovedAt;firmOfferAt;chosenAt;issuedAt;statusChangedAt',
    );
    assert.is(lines.at(-1), '', 'ends with CRLF');
    assert.ok(lines[1]!.startsWith(`${id};`), 'newest first');
    assert.ok(lines[1]!.includes(`;"'=HYPERLINK(""http://x"";""ç"")";`), lines[1]);
    assert.is(lines.length, 5, 'header, three rows, final line break');
  }
  const raw = await fetch(`${app.url}/v1/proposals/dashboard/rows?format=csv`, { headers: { authorization: `Bearer ${tenant.token}` } });
  assert.equal([...new Uint8Array(await raw.arrayBuffer()).slice(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 byte order mark');
});

test('XLSX: one sheet, the same columns, dates and amounts typed', async () => {
  const reply = await fetch(`${app.url}/v1/proposals/dashboard/rows?${PERIOD}`, {
    headers: { authorization: `Bearer ${bulk.token}`, accept: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
  });
  assert.is(reply.status, 200);
  assert.is(reply.headers.get('x-export-truncated'), 'true');
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(await reply.arrayBuffer());
  const sheet = workbook.getWorksheet('Propostas')!;
  assert.is(sheet.rowCount, 5001, 'header and 5000 rows');
  assert.is(sheet.getCell('A1').value, 'id');
  assert.instance(sheet.getCell('B2').value, Date);
  assert.is((sheet.getCell('B2').value as Date).toISOString(), '2026-06-01T11:59:00.000Z');
  assert.is(sheet.getCell('M2').value, 100_001);
});

test('the 5000 ceiling: truncated when more matched, not when exactly 5000 did', async () => {
  const all = await get(`/v1/proposals/dashboard/rows?${PERIOD}`, bulk.token);
  assert.is(all.body.rows.length, 5000);
  assert.is(all.body.truncated, true);
  assert.is(all.body.rows[0].createdAt, '2026-06-01T11:59:00.000Z');
  assert.is(all.body.rows[4999].createdAt, new Date(Date.parse(BULK_NEWEST) - 5000 * 60_000).toISOString());
  // The oldest seeded row is 5001 minutes before the newest: a period starting after it holds exactly 5000.
  const exactly = await get(`/v1/proposals/dashboard/rows?from=${new Date(Date.parse(BULK_NEWEST) - 5000 * 60_000).toISOString()}&to=2026-12-31T00:00:00Z`, bulk.token);
  assert.equal([exactly.body.rows.length, exactly.body.truncated], [5000, false]);
  const filtered = await get(`/v1/proposals/dashboard/rows?${PERIOD}&status=ISSUED&entityType=PERSON&origin=CHANNEL,API`, bulk.token);
  assert.ok(filtered.body.rows.length > 0 && filtered.body.rows.every((r: any) => r.status === 'ISSUED' && r.entityType === 'PERSON' && ['CHANNEL', 'API'].includes(r.origin)));
  assert.is(filtered.body.truncated, false);
});

/** Holds an exclusive lock on proposal_facts, so an export blocks in its query until `release`. */
async function blockFacts() {
  const trx = await app.app.db.transaction();
  await trx.raw('lock table proposal_facts in access exclusive mode');
  return () => trx.rollback();
}

test('two concurrent exports: an identical one shares the run, other filters get 429, then the next runs', async () => {
  const release = await blockFacts();
  const a = get(`/v1/proposals/dashboard/rows?${PERIOD}`, bulk.token);
  await eventually(async () => (await runs().where({ organization_id: bulk.organizationId })).length === 1, { timeoutMs: 10_000, what: 'the first export holds the lease' });
  const b = get(`/v1/proposals/dashboard/rows?to=2026-12-31T00:00:00Z&from=2026-01-01T00:00:00Z`, bulk.token);
  const c = await get(`/v1/proposals/dashboard/rows?${PERIOD}&status=DRAFT`, bulk.token);
  assert.equal(c.body, { code: 429, message: DashboardMessages.exportBusy });
  await release();
  const [first, second] = await Promise.all([a, b]);
  assert.is(first.status, 200);
  assert.equal(second.body, first.body, 'the identical export answers the same rows');
  assert.is((await runs().where({ organization_id: bulk.organizationId })).length, 0, 'the lease is released');
  assert.is((await get(`/v1/proposals/dashboard/rows?${PERIOD}&status=DRAFT`, bulk.token)).status, 200, 'once it ended, other filters run');
});

test('across processes: a lease held elsewhere refuses other filters, makes an identical export wait, and frees when it lapses', async () => {
  const key = (query: Record<string, string>) => {
    const parsed = parseDashboardFilters(query, new Date());
    if (!parsed.ok) throw new Error(parsed.message);
    return filtersKey(parsed.value);
  };
  const period = { from: '2026-01-01T00:00:00Z', to: '2026-12-31T00:00:00Z' };
  const hold = (filtersKeyText: string, seconds: number) =>
    runs().insert({ organization_id: bulk.organizationId, run_id: 'elsewhere', filters_key: filtersKeyText, lease_until: app.app.db.raw(`now() + make_interval(secs => ${seconds})`) });
  await hold(key({ ...period, status: 'DRAFT' }), 60);
  assert.equal((await get(`/v1/proposals/dashboard/rows?${PERIOD}`, bulk.token)).body, { code: 429, message: DashboardMessages.exportBusy });
  await runs().where({ run_id: 'elsewhere' }).delete();

  await hold(key(period), 60);
  let settled = false;
  const waiting = get(`/v1/proposals/dashboard/rows?${PERIOD}`, bulk.token).finally(() => (settled = true));
  // It waits on the other process's identical run rather than refusing or running beside it.
  await eventually(async () => (await runs().where({ run_id: 'elsewhere' })).length === 1 && !settled, { timeoutMs: 2000, what: 'still waiting' });
  await runs().where({ run_id: 'elsewhere' }).delete();
  assert.is((await waiting).status, 200);

  await hold(key({ ...period, status: 'DRAFT' }), -1);
  assert.is((await get(`/v1/proposals/dashboard/rows?${PERIOD}`, bulk.token)).status, 200, 'a lapsed lease (its process died) is taken over');
});

test('a query past its statement timeout answers 502, not a hang, and frees the organization', async () => {
  const release = await blockFacts();
  try {
    assert.equal((await get(`/v1/proposals/dashboard/rows?${PERIOD}`, bulk.token)).body, { code: 502, message: Messages.dashboardExportFailed });
  } finally {
    await release();
  }
  assert.is((await runs().where({ organization_id: bulk.organizationId })).length, 0);
});

test.run();
