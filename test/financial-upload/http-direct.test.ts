import { countOf } from '../../platform/database/knex.ts';
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SLOT_GRACE_MS, sweepUploadSlots } from '../../application/financial-upload/sweep.ts';
import { signedUploadUrl } from '../../application/financial-upload/upload-url.ts';
import { objectStoreFor } from '../../application/object-store.ts';
import { FinancialUploadMessages as M } from '../../domain/financial-upload/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { createReport, presign, put, statementPdf, stored, submittedBatches, uploadAll } from './support.ts';

const test = suite('financial statements: direct upload (presign, PUT, complete)');
let app: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let reportId: string;
let pdf: Buffer;

test.before(async () => {
  app = await startTestApp();
  [tenant, other] = await Promise.all([provisionTenant(app), provisionTenant(app, { name: 'Other organization' })]);
  reportId = await createReport(app, tenant);
  pdf = await statementPdf('Balanço Patrimonial 2025 - Ativo Circulante 1.000,00');
});
test.after(async () => {
  await app?.stop();
});

const presignCall = (body: unknown, id = reportId, token = tenant.token) => app.call('POST', `/report/${id}/financial-tab/presign`, { token, body });
const complete = (keys: unknown, id = reportId, token = tenant.token) => app.call('POST', `/report/${id}/financial-tab/complete`, { token, body: { keys } });
const refused = (reply: { status: number; body: any }, status: number, message: string) => {
  assert.is(reply.status, status, JSON.stringify(reply.body));
  assert.equal(reply.body, { code: status, message });
};

test("another organization's report, or none, is 404 before the body is even looked at", async () => {
  const foreign = await createReport(app, other);
  for (const id of [foreign, '5f0000000000000000000000']) {
    refused(await presignCall({ files: [] }, id), 404, M.reportNotFound);
    refused(await presignCall({ files: [{ name: 'a.pdf', size: 10 }] }, id), 404, M.reportNotFound);
    refused(await complete([], id), 404, M.reportNotFound);
  }
  refused(await presignCall({ files: [] }, 'not-an-id'), 400, 'O identificador informado não é válido.');
});

test('presign: every validation text, files.N. prefixes in order', async () => {
  refused(await presignCall({}), 400, 'files should not be empty');
  refused(await presignCall({ files: [] }), 400, 'files must contain at least 1 elements');
  refused(await presignCall({ files: Array.from({ length: 11 }, (_, i) => ({ name: `${i}.pdf`, size: 1 })) }), 400, 'files must contain no more than 10 elements');
  refused(await presignCall({ files: [{ name: 'balanco.docx', size: 10 }] }), 400, 'files.0.Apenas arquivos PDF são aceitos.');
  refused(await presignCall({ files: [{ name: 'a.pdf', size: 52_428_801 }] }), 400, 'files.0.Arquivo maior que 50MB.');
  refused(
    await presignCall({
      files: [
        { name: 'a.pdf', size: 52_428_800 },
        { name: 'b.txt', size: 52_428_801 },
        { name: '', size: 1 },
        { name: `${'x'.repeat(252)}.pdf`, size: 1 },
      ],
    }),
    400,
    'files.1.Apenas arquivos PDF são aceitos.,files.1.Arquivo maior que 50MB.,files.2.name should not be empty,files.3.name must be shorter than or equal to 255 characters',
  );
  refused(await presignCall({ files: [{ name: 'a.pdf', size: 1.5 }] }), 400, 'files.0.size must be an integer number');
  refused(await presignCall({ files: [{ name: 'a.pdf', size: 0 }] }), 400, 'files.0.size must not be less than 1');
});

test('presign: one key and URL per file, in order, valid 900 s; the permission can-generate-report is needed', async () => {
  const slots = await presign(app, tenant, reportId, [
    { name: 'BALANCO.PDF', size: 10 },
    { name: 'dre.pdf', size: 20 },
  ]);
  assert.is(slots.length, 2);
  for (const slot of slots) {
    assert.match(slot.key, new RegExp(`^financial/${tenant.organizationId}/${reportId}/[0-9a-f]{24}\\.pdf$`));
    assert.is(slot.expiresInSeconds, 900);
    assert.match(slot.uploadUrl, `/uploads/${slot.key}?expires=`);
  }
  assert.is.not(slots[0]!.key, slots[1]!.key);
  const reader = await provisionTenant(app, { permissions: ['can-create-report'] });
  const readerReport = await createReport(app, reader);
  assert.is((await presignCall({ files: [{ name: 'a.pdf', size: 1 }] }, readerReport, reader.token)).status, 403);
});

test('PUT: wrong Content-Type, wrong length, tampered or expired URL are refused and nothing is stored', async () => {
  const [slot] = await presign(app, tenant, reportId, [{ name: 'a.pdf', size: pdf.length }]);
  const { key, uploadUrl } = slot!;
  const attempts = [
    await put(app, uploadUrl, pdf, { 'content-type': 'application/octet-stream' }),
    await put(app, uploadUrl, pdf, { 'content-type': 'application/pdf; charset=binary' }),
    await put(app, uploadUrl, pdf.subarray(1)),
    await put(app, uploadUrl, Buffer.concat([pdf, Buffer.from('x')])),
    await put(app, uploadUrl.replace(/signature=./, 'signature=A'), pdf),
    await put(
      app,
      uploadUrl.replace(/expires=\d+/, (m) => `expires=${Number(m.slice(8)) + 60}`),
      pdf,
    ),
  ];
  for (const reply of attempts) {
    assert.is(reply.status, 403);
    assert.equal(await reply.json(), { code: 403, message: M.uploadLinkInvalid });
  }
  const expired = signedUploadUrl(app.app.config, key, pdf.length, 'application/pdf', new Date(Date.now() - 1000));
  const late = await put(app, expired, pdf);
  assert.is(late.status, 403);
  assert.equal(await late.json(), { code: 403, message: M.uploadLinkExpired });
  assert.is(await stored(app, key), null);
  const ok = await put(app, uploadUrl, pdf);
  assert.is(ok.status, 200);
  assert.equal(await ok.json(), { key, sizeBytes: pdf.length });
  assert.ok((await stored(app, key))!.equals(pdf));
});

test('complete: every check and text; a rejected file is deleted', async () => {
  refused(await complete([]), 400, 'keys must contain at least 1 elements');
  refused(await complete(Array.from({ length: 11 }, (_, i) => `k${i}`)), 400, 'keys must contain no more than 10 elements');
  refused(await complete(['https://example.com/x.pdf']), 400, M.invalidKey);
  const foreignReport = await createReport(app, tenant);
  const [foreignSlot] = await presign(app, tenant, foreignReport, [{ name: 'a.pdf', size: 5 }]);
  refused(await complete([foreignSlot!.key]), 400, M.invalidKey);
  refused(await complete([`financial/${tenant.organizationId}/${reportId}/5f0000000000000000000000.pdf`]), 400, M.invalidKey);

  const [notPut] = await presign(app, tenant, reportId, [{ name: 'a.pdf', size: 5 }]);
  refused(await complete([notPut!.key]), 400, M.notInStorage);

  const store = objectStoreFor(app.app.config);
  const cases: Array<[Buffer, string]> = [
    [Buffer.from('hello, not a pdf'), M.onlyValidPdf],
    [pdf.subarray(0, pdf.length - 200), M.emptyOrCorrupted],
  ];
  for (const [bytes, message] of cases) {
    const [key] = await uploadAll(app, tenant, reportId, [{ name: 'x.pdf', bytes }]);
    refused(await complete([key]), 400, message);
    assert.is(await stored(app, key!), null, message);
  }
  // Written past the PUT's checks (another process, an S3 bucket without the presign's bounds).
  const [empty, huge] = await presign(app, tenant, reportId, [
    { name: 'e.pdf', size: 1 },
    { name: 'h.pdf', size: 1 },
  ]);
  await store.put(empty!.key, Buffer.alloc(0), 'application/pdf');
  refused(await complete([empty!.key]), 400, M.emptyOrCorrupted);
  await store.put(huge!.key, Buffer.concat([Buffer.from('%PDF-'), Buffer.alloc(52_428_800)]), 'application/pdf');
  refused(await complete([huge!.key]), 400, M.tooLarge);
  assert.is(await store.head(empty!.key), null);
  assert.is(await store.head(huge!.key), null);
  assert.equal(await submittedBatches(app, reportId), []);
});

test('complete is all or nothing, then one event for the batch; a retry records nothing new', async () => {
  const dre = await statementPdf('Demonstração do Resultado 2025 - Receita Líquida 500,00');
  const [good, bad] = await uploadAll(app, tenant, reportId, [
    { name: 'balanco.pdf', bytes: pdf },
    { name: 'ruim.pdf', bytes: Buffer.from('GIF89a...') },
  ]);
  refused(await complete([good, bad]), 400, M.onlyValidPdf);
  assert.equal(await submittedBatches(app, reportId), []);
  assert.is(await stored(app, bad!), null);
  assert.ok(await stored(app, good!), 'a file confirmed before the failure stays, to be sent again');

  const [redone] = await uploadAll(app, tenant, reportId, [{ name: 'dre.pdf', bytes: dre }]);
  const reply = await complete([good, redone]);
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.is(reply.body.id, reportId);
  assert.ok(Array.isArray(reply.body.integrationTypes));
  assert.type(reply.body.reportProgress.isFinalized, 'boolean');
  assert.ok(reply.body.sections.length > 0);
  const batches = await submittedBatches(app, reportId);
  assert.is(batches.length, 1);
  const [batch] = batches;
  assert.is(batch.via, 'PRESIGNED');
  assert.is(batch.organizationId, tenant.organizationId);
  assert.is(batch.userId, tenant.userId);
  assert.match(batch.batchId, /^[0-9a-f]{24}$/);
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  assert.equal(batch.files, [
    { key: good, blobId: good!.slice(-28, -4), fileName: 'balanco.pdf', sizeBytes: pdf.length, sha256: sha(pdf) },
    { key: redone, blobId: redone!.slice(-28, -4), fileName: 'dre.pdf', sizeBytes: dre.length, sha256: sha(dre) },
  ]);

  const again = await complete([redone, good, good]);
  assert.is(again.status, 200);
  assert.is((await submittedBatches(app, reportId)).length, 1);
});

test('two completes of the same new keys at once record one batch', async () => {
  const reportId2 = await createReport(app, tenant);
  const keys = await uploadAll(app, tenant, reportId2, [
    { name: 'a.pdf', bytes: pdf },
    { name: 'b.pdf', bytes: pdf },
  ]);
  const replies = await Promise.all([complete(keys, reportId2), complete([...keys].reverse(), reportId2)]);
  assert.equal(
    replies.map((r) => r.status),
    [200, 200],
  );
  assert.is((await submittedBatches(app, reportId2)).length, 1);
});

test('the sweep forgets slots a day past expiry, deleting files never completed and keeping accepted ones', async () => {
  const reportId3 = await createReport(app, tenant);
  const [accepted, abandoned] = await uploadAll(app, tenant, reportId3, [
    { name: 'a.pdf', bytes: pdf },
    { name: 'b.pdf', bytes: pdf },
  ]);
  assert.is((await complete([accepted], reportId3)).status, 200);
  const slotsOf = () => countOf(app.app.db('financial_upload_slots').where({ report_id: reportId3 }));
  const soon = { ...app.app, clock: { now: () => new Date(Date.now() + SLOT_GRACE_MS) } };
  await sweepUploadSlots(soon);
  assert.is(await slotsOf(), 2, 'within the grace, nothing is touched');
  const later = { ...app.app, clock: { now: () => new Date(Date.now() + SLOT_GRACE_MS + 3_600_000) } };
  await sweepUploadSlots(later);
  assert.is(await slotsOf(), 0);
  assert.ok(await stored(app, accepted!));
  assert.is(await stored(app, abandoned!), null);
});

test.run();
