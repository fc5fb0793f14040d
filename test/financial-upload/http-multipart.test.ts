import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FinancialUploadMessages as M } from '../../domain/financial-upload/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { createReport, statementPdf, stored, submittedBatches } from './support.ts';

const test = suite('financial statements: multipart upload');
let app: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let pdf: Buffer;

test.before(async () => {
  app = await startTestApp();
  [tenant, other] = await Promise.all([provisionTenant(app), provisionTenant(app, { name: 'Other organization' })]);
  pdf = await statementPdf('Balanço Patrimonial 2025');
});
test.after(async () => {
  await app?.stop();
});

async function upload(reportId: string, files: Array<{ name: string; bytes: Buffer }>, token = tenant.token) {
  const form = new FormData();
  for (const file of files) form.append('files', new Blob([new Uint8Array(file.bytes)], { type: 'application/pdf' }), file.name);
  const reply = await fetch(`${app.url}/report/${reportId}/financial-tab`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
  return { status: reply.status, body: await reply.json() };
}

/** Every object the store holds for a report (the local store's folder). */
function objectsOf(reportId: string): string[] {
  try {
    return readdirSync(join(app.app.config.DATA_DIR, 'objects', 'financial', tenant.organizationId, reportId));
  } catch {
    return [];
  }
}

test('several PDFs in one call: one batch, via MULTIPART, names and order kept; the reply is the report', async () => {
  const reportId = await createReport(app, tenant);
  const dre = await statementPdf('DRE 2025');
  const reply = await upload(reportId, [
    { name: 'balanco.pdf', bytes: pdf },
    { name: 'dre.pdf', bytes: dre },
  ]);
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.is(reply.body.id, reportId);
  assert.ok(Array.isArray(reply.body.integrationTypes));
  const [batch, ...more] = await submittedBatches(app, reportId);
  assert.is(more.length, 0);
  assert.is(batch.via, 'MULTIPART');
  assert.equal(
    batch.files.map((f: any) => [f.fileName, f.sizeBytes]),
    [
      ['balanco.pdf', pdf.length],
      ['dre.pdf', dre.length],
    ],
  );
  assert.ok((await stored(app, batch.files[1].key))!.equals(dre));
});

test('same texts as presign and complete; a failing file leaves nothing stored and nothing recorded', async () => {
  const reportId = await createReport(app, tenant);
  const refusals: Array<[Array<{ name: string; bytes: Buffer }>, string]> = [
    [[], 'files must contain at least 1 elements'],
    [Array.from({ length: 11 }, (_, i) => ({ name: `${i}.pdf`, bytes: pdf })), 'files must contain no more than 10 elements'],
    [
      [
        { name: 'a.pdf', bytes: pdf },
        { name: 'b.xlsx', bytes: pdf },
      ],
      'files.1.Apenas arquivos PDF são aceitos.',
    ],
    [
      [
        { name: 'a.pdf', bytes: pdf },
        { name: 'b.pdf', bytes: Buffer.from('plain text') },
      ],
      M.onlyValidPdf,
    ],
    [
      [
        { name: 'a.pdf', bytes: pdf },
        { name: 'b.pdf', bytes: Buffer.alloc(0) },
      ],
      M.emptyOrCorrupted,
    ],
  ];
  for (const [files, message] of refusals) {
    const reply = await upload(reportId, files);
    assert.is(reply.status, 400, message);
    assert.equal(reply.body, { code: 400, message });
  }
  assert.equal(objectsOf(reportId), []);
  assert.equal(await submittedBatches(app, reportId), []);
});

test("another organization's report is 404; a file over 50 MB is refused by position without being read whole", async () => {
  const foreign = await createReport(app, other);
  const notFound = await upload(foreign, [{ name: 'a.pdf', bytes: pdf }]);
  assert.equal(notFound, { status: 404, body: { code: 404, message: M.reportNotFound } });
  const reportId = await createReport(app, tenant);
  const big = await upload(reportId, [
    { name: 'a.pdf', bytes: pdf },
    { name: 'b.pdf', bytes: Buffer.alloc(52_428_801, 0x25) },
  ]);
  assert.equal(big, { status: 400, body: { code: 400, message: `files.1.${M.tooLarge}` } });
  assert.equal(objectsOf(reportId), []);
});

test.run();
