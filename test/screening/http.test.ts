import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY, DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { SCREENING_FIXTURES, startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { eventually } from '../support/wait.ts';

/**
 * Reports over HTTP screened against the fixture lists (test/fixtures/lists, each in its
 * published format). OFAC's list comes from a local HTTP server, as a URL source, and changes
 * mid-test: the scheduler's pass (every second here) loads the new file as a new version.
 */

const fixture = (name: string) => readFileSync(new URL(`../fixtures/lists/${name}`, import.meta.url));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

// Documents with valid check digits; the sandbox gives each its registry name (in brackets).
const CEIS_CNPJ = '33445566000186'; // [Vale Verde Transportes Ltda], listed in CEIS by CNPJ
const CNEP_CNPJ = '77889911000146'; // [Pioneira Serviços Médicos Ltda], listed in CNEP by CNPJ
const OFAC_CPF = '58392017404'; // [Rafael Carvalho Santos], OFAC "Rafael CARVALHO DOS SANTOS" in sdn-name-match.xml only
const PEP_CPF = '35271846008'; // [Eduarda Lima Ribeiro], PEP "***.718.460-**" EDUARDA LIMA RIBEIRO
const PEP_NAMESAKE_CPF = '47109382613'; // [João Santos Costa], PEP lists that name with other CPF digits
const CLEAN_CPF = '12345678909';

interface Ctx {
  server: Server;
  ofacBody: Buffer;
  app: TestApp;
  tenant: TestTenant;
  policies: Record<string, string>;
}

async function report(ctx: Ctx, document: string, type: 'cpf' | 'cnpj') {
  const created = await ctx.app.call('POST', '/v2/report', { token: ctx.tenant.token, body: { document, type, policyId: ctx.policies[type] } });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const done = await waitForReport(ctx.app, ctx.tenant.token, created.body.id);
  const section = (value: string) => done.sections.find((s: any) => s.type.value === value)?.sectionDetails;
  return { report: done, sanctions: section('SANCTIONS'), basic: section('BASIC_INFORMATION') };
}

async function provision(ctx: Ctx) {
  ctx.tenant = await provisionTenant(ctx.app);
  ctx.policies = {};
  for (const content of [DEMO_CPF_POLICY, DEMO_CNPJ_POLICY]) {
    const reply = await ctx.app.call('POST', '/credit-policy/policy', { token: ctx.tenant.token, body: content });
    assert.is(reply.status, 200, JSON.stringify(reply.body));
    ctx.policies[content.documentType] = reply.body.id;
  }
}

const screened = suite<Ctx>('screening: reports against the loaded lists');

screened.before(async (ctx) => {
  ctx.ofacBody = fixture('sdn.xml');
  ctx.server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/xml' }).end(ctx.ofacBody);
  });
  await new Promise<void>((resolve) => ctx.server.listen(0, '127.0.0.1', resolve));
  const { port } = ctx.server.address() as AddressInfo;
  ctx.app = await startTestApp({ SCREENING_OFAC_SDN_SOURCE: `http://127.0.0.1:${port}/sdn.xml`, SCREENING_REFRESH_CRON: '* * * * * *' });
  await provision(ctx);
});
screened.after(async (ctx) => {
  await ctx.app?.stop();
  ctx.server?.close();
});

screened('a company in CEIS: matched by CNPJ, citing the list, its publication date and the file SHA-256; denied', async (ctx) => {
  const { report: done, sanctions } = await report(ctx, CEIS_CNPJ, 'cnpj');
  assert.is(sanctions.screened, true);
  assert.is(sanctions.hasSanctions, true);
  assert.is(sanctions.count, 1);
  const [match] = sanctions.records;
  assert.equal(
    { list: match.list, publishedAt: match.publishedAt, sha256: match.sha256, matchedBy: match.matchedBy, score: match.score, entryRef: match.entryRef, listedName: match.listedName },
    { list: 'CEIS', publishedAt: '2026-11-20', sha256: sha256(fixture('20261120_CEIS.csv')), matchedBy: 'DOCUMENT', score: 1, entryRef: '316001', listedName: 'VALE VERDE TRANSPORTES LTDA' },
  );
  assert.is(match.details.orgaoSancionador, 'Ministério da Educação', 'read as ISO-8859-1');
  assert.equal(sanctions.lists.map((l: any) => l.list).sort(), ['CEIS', 'CNEP', 'OFAC_SDN', 'UN_CONSOLIDATED']);
  assert.is(done.policyStatus, 'DENIED');
});

screened('a company in CNEP: matched by CNPJ, with the fine', async (ctx) => {
  const { sanctions } = await report(ctx, CNEP_CNPJ, 'cnpj');
  assert.is(sanctions.count, 1);
  assert.is(sanctions.records[0].list, 'CNEP');
  assert.is(sanctions.records[0].sha256, sha256(fixture('20261120_CNEP.csv')));
  assert.is(sanctions.records[0].details.valorMulta, '150000,00');
});

screened('a person in the PEP file: masked CPF digits and name both match; the name alone or the digits alone do not', async (ctx) => {
  const pep = await report(ctx, PEP_CPF, 'cpf');
  assert.is(pep.basic.pep, true);
  assert.is(pep.basic.pepScreening.screened, true);
  assert.is(pep.basic.pepScreening.sha256, sha256(fixture('202610_PEP.csv')));
  assert.is(pep.basic.pepScreening.publishedAt, '2026-10-01');
  assert.is(pep.basic.pepScreening.matches.length, 1, 'OTÁVIO PEREIRA GOMES shares the digits, not the name');
  const [match] = pep.basic.pepScreening.matches;
  assert.equal([match.matchedBy, match.listedName, match.details.descricaoFuncao], ['MASKED_CPF_AND_NAME', 'EDUARDA LIMA RIBEIRO', 'SECRETÁRIO ESPECIAL']);
  assert.is(pep.sanctions.hasSanctions, false);

  const namesake = await report(ctx, PEP_NAMESAKE_CPF, 'cpf');
  assert.is(namesake.basic.name, 'João Santos Costa');
  assert.is(namesake.basic.pep, false);
  assert.equal(namesake.basic.pepScreening.matches, []);
});

screened('someone in no list: screened, no match, every list cited; approved', async (ctx) => {
  const { report: done, sanctions, basic } = await report(ctx, CLEAN_CPF, 'cpf');
  assert.equal([sanctions.screened, sanctions.hasSanctions, sanctions.count, sanctions.records], [true, false, 0, []]);
  assert.is(sanctions.screenedBy, 'DOCUMENT_AND_NAME');
  assert.is(sanctions.lists.find((l: any) => l.list === 'OFAC_SDN').sha256, sha256(fixture('sdn.xml')));
  assert.is(sanctions.lists.find((l: any) => l.list === 'UN_CONSOLIDATED').publishedAt, '2026-11-26T15:15:03.120Z');
  assert.is(basic.pep, false);
  assert.is(done.policyStatus, 'APPROVED');
});

screened('a new OFAC file at the address: the scheduler loads it as a new version and the name match of the next report cites it', async (ctx) => {
  const before = await report(ctx, OFAC_CPF, 'cpf');
  assert.is(before.sanctions.count, 0);
  const oldVersion = before.sanctions.lists.find((l: any) => l.list === 'OFAC_SDN');

  ctx.ofacBody = fixture('sdn-name-match.xml');
  const newSha = sha256(ctx.ofacBody);
  await eventually(async () => (await ctx.app.database.knex('screening_list_versions').where({ list: 'OFAC_SDN', status: 'CURRENT', sha256: newSha }).first()) ?? false, {
    timeoutMs: 15_000,
    what: 'the new OFAC version',
  });
  const replaced = await ctx.app.database.knex('screening_list_versions').where({ id: oldVersion.listVersionId }).first();
  assert.is(replaced.status, 'REPLACED');

  // The version's notice reached the worker: the very next report is screened against it.
  const after = await report(ctx, OFAC_CPF, 'cpf');
  assert.is(after.sanctions.count, 1);
  const [match] = after.sanctions.records;
  assert.equal(
    { list: match.list, publishedAt: match.publishedAt, sha256: match.sha256, matchedBy: match.matchedBy, score: match.score, matchedName: match.matchedName },
    { list: 'OFAC_SDN', publishedAt: '2026-11-27', sha256: newSha, matchedBy: 'NAME', score: 1, matchedName: 'Rafael CARVALHO DOS SANTOS' },
  );
  assert.is(after.report.policyStatus, 'DENIED');
});

screened.run();

const unconfigured = suite<Ctx>('screening: no list configured');

unconfigured.before(async (ctx) => {
  ctx.app = await startTestApp(Object.fromEntries(Object.keys(SCREENING_FIXTURES).map((key) => [key, ''])));
  await provision(ctx);
});
unconfigured.after(async (ctx) => {
  await ctx.app?.stop();
});

unconfigured('SANCTIONS says screening was not performed (never clean), the PEP flag is unknown, the demo policy refers to an analyst', async (ctx) => {
  const { report: done, sanctions, basic } = await report(ctx, CLEAN_CPF, 'cpf');
  assert.equal([sanctions.screened, sanctions.hasSanctions, sanctions.count, sanctions.records], [false, null, null, []]);
  assert.match(sanctions.reason, /^Triagem não realizada/);
  assert.equal(sanctions.listsNotLoaded, ['OFAC_SDN', 'UN_CONSOLIDATED', 'CEIS', 'CNEP']);
  assert.is(basic.pep, null);
  assert.is(basic.pepScreening.screened, false);
  assert.is(done.policyStatus, 'MANUAL_ANALYSIS');
});

unconfigured.run();
