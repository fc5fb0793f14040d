import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { eventually } from '../support/wait.ts';

/**
 * The Portal da Transparência's lists as it serves them, ZIPs holding one CSV: CEIS from a local
 * address (with a token in its query, never shown) that later serves a zip bomb and then an
 * archive of two CSVs, both refused while the version loaded stays; PEP from a ZIP file; CNEP
 * from an address that answers 404; UN not configured. Read over GET /v1/screening/lists.
 */

const fixture = (name: string) => readFileSync(new URL(`../fixtures/lists/${name}`, import.meta.url));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const zipOf = (files: Record<string, Uint8Array>) => Buffer.from(zipSync(files, { level: 6 }));
const CEIS_CNPJ = '33445566000186'; // listed in CEIS by CNPJ (test/screening/http.test.ts)

interface Ctx {
  server: Server;
  ceis: Buffer;
  dir: string;
  origin: string;
  app: TestApp;
  tenant: TestTenant;
}

const test = suite<Ctx>('screening: the Portal ZIPs, loaded and shown');

test.before(async (ctx) => {
  ctx.ceis = zipOf({ '20261120_CEIS.csv': fixture('20261120_CEIS.csv') });
  ctx.server = createServer((request, response) => {
    if (request.url?.startsWith('/download-de-dados/ceis')) response.writeHead(200, { 'content-type': 'application/zip' }).end(ctx.ceis);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => ctx.server.listen(0, '127.0.0.1', resolve));
  ctx.origin = `http://127.0.0.1:${(ctx.server.address() as AddressInfo).port}`;
  ctx.dir = mkdtempSync(join(tmpdir(), 'screening-zip-'));
  writeFileSync(join(ctx.dir, 'pep.zip'), zipOf({ '202610_PEP.csv': fixture('202610_PEP.csv') }));
  ctx.app = await startTestApp({
    SCREENING_CEIS_SOURCE: `${ctx.origin}/download-de-dados/ceis?token=s3cret`,
    SCREENING_CNEP_SOURCE: `${ctx.origin}/download-de-dados/cnep`,
    SCREENING_PEP_SOURCE: join(ctx.dir, 'pep.zip'),
    SCREENING_UN_SOURCE: '',
    SCREENING_MAX_UNZIPPED_BYTES: '1000000',
    SCREENING_REFRESH_CRON: '* * * * * *',
  });
  ctx.tenant = await provisionTenant(ctx.app);
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  ctx.server?.close();
  if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
});

async function lists(ctx: Ctx) {
  const reply = await ctx.app.call('GET', '/v1/screening/lists', { token: ctx.tenant.token });
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  return Object.fromEntries(reply.body.lists.map((state: any) => [state.list, state]));
}

test('the lists route: ZIPs loaded with the ZIP SHA-256 and the date of the entry name; not configured and not loaded shown so; no credentials', async (ctx) => {
  const reply = await ctx.app.call('GET', '/v1/screening/lists', { token: ctx.tenant.token });
  assert.not.match(JSON.stringify(reply.body), /s3cret|token=/);
  assert.not.match(JSON.stringify(reply.body), new RegExp(ctx.dir));
  const state = await lists(ctx);
  assert.equal(Object.keys(state), ['OFAC_SDN', 'UN_CONSOLIDATED', 'CEIS', 'CNEP', 'PEP']);
  const { loadedAt, checkedAt, listVersionId, ...ceis } = state.CEIS;
  assert.ok(listVersionId && Date.parse(loadedAt) && Date.parse(checkedAt));
  assert.equal(ceis, {
    list: 'CEIS',
    listTitle: ceis.listTitle,
    status: 'LOADED',
    source: { kind: 'ADDRESS', location: `${ctx.origin}/download-de-dados/ceis` },
    publishedAt: '2026-11-20',
    publishedAtFrom: 'FILE',
    sha256: sha256(ctx.ceis),
    byteCount: ctx.ceis.length,
    entryCount: 2,
    lastFailure: null,
  });
  assert.equal(
    [state.PEP.status, state.PEP.source, state.PEP.publishedAt, state.PEP.sha256],
    ['LOADED', { kind: 'FILE', location: 'pep.zip' }, '2026-10-01', sha256(readFileSync(join(ctx.dir, 'pep.zip')))],
  );
  assert.equal([state.UN_CONSOLIDATED.status, state.UN_CONSOLIDATED.source, state.UN_CONSOLIDATED.sha256], ['NOT_CONFIGURED', null, null]);
  assert.equal([state.CNEP.status, state.CNEP.publishedAt, state.CNEP.lastFailure?.message], ['NOT_LOADED', null, `${ctx.origin}/download-de-dados/cnep respondeu 404`]);
  assert.is(state.OFAC_SDN.status, 'LOADED');
  assert.is((await ctx.app.call('GET', '/v1/screening/lists')).status, 401);
});

test('a report screened against the zipped CEIS cites the ZIP SHA-256', async (ctx) => {
  const policy = await ctx.app.call('POST', '/credit-policy/policy', { token: ctx.tenant.token, body: DEMO_CNPJ_POLICY });
  const created = await ctx.app.call('POST', '/v2/report', { token: ctx.tenant.token, body: { document: CEIS_CNPJ, type: 'cnpj', policyId: policy.body.id } });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const done = await waitForReport(ctx.app, ctx.tenant.token, created.body.id);
  const sanctions = done.sections.find((s: any) => s.type.value === 'SANCTIONS').sectionDetails;
  assert.equal([sanctions.records[0].list, sanctions.records[0].sha256, sanctions.records[0].publishedAt], ['CEIS', sha256(ctx.ceis), '2026-11-20']);
});

test('a zip bomb, then an archive of two CSVs: each refused, shown as the last failure, the loaded version stays', async (ctx) => {
  const before = (await lists(ctx)).CEIS;
  ctx.ceis = zipOf({ '20261127_CEIS.csv': new Uint8Array(5_000_000).fill(0x30) });
  const bombed = await eventually(
    async () => {
      const ceis = (await lists(ctx)).CEIS;
      return ceis.lastFailure && ceis;
    },
    { timeoutMs: 15_000, what: 'the zip bomb refused' },
  );
  assert.match(bombed.lastFailure.message, /SCREENING_MAX_UNZIPPED_BYTES \(1000000\)/);
  assert.not.match(bombed.lastFailure.message, /s3cret/);
  assert.equal([bombed.status, bombed.listVersionId, bombed.sha256], ['LOADED', before.listVersionId, before.sha256]);

  ctx.ceis = zipOf({ '20261127_CEIS.csv': fixture('20261120_CEIS.csv'), '20261127_CNEP.csv': fixture('20261120_CNEP.csv') });
  const doubled = await eventually(
    async () => {
      const ceis = (await lists(ctx)).CEIS;
      return /mais de um CSV/.test(ceis.lastFailure?.message ?? '') && ceis;
    },
    { timeoutMs: 15_000, what: 'the archive of two CSVs refused' },
  );
  assert.match(doubled.lastFailure.message, /\(20261127_CEIS\.csv, 20261127_CNEP\.csv\); esperado exatamente um/);
  assert.equal([doubled.status, doubled.listVersionId, doubled.sha256, doubled.entryCount], ['LOADED', before.listVersionId, before.sha256, 2]);
});

test.run();
