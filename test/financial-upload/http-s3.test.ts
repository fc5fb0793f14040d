import nock from 'nock';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FinancialUploadMessages as M } from '../../domain/financial-upload/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { createReport, presign, statementPdf, submittedBatches } from './support.ts';

const test = suite('financial statements: direct upload with the S3 object store (nock)');
const ENDPOINT = 'http://s3.test:9000';
let app: TestApp;
let tenant: TestTenant;
let reportId: string;
let pdf: Buffer;

test.before(async () => {
  app = await startTestApp({ OBJECT_STORE: 's3', S3_ENDPOINT: ENDPOINT, S3_BUCKET: 'statements', S3_ACCESS_KEY_ID: 'AKIDTEST', S3_SECRET_ACCESS_KEY: 'secret-test-key' });
  tenant = await provisionTenant(app);
  reportId = await createReport(app, tenant);
  pdf = await statementPdf('Balanço Patrimonial 2025');
});
test.after.each(() => nock.cleanAll());
test.after(async () => {
  await app?.stop();
});

const complete = (keys: string[]) => app.call('POST', `/report/${reportId}/financial-tab/complete`, { token: tenant.token, body: { keys } });

test('presign answers S3 presigned PUTs bound to the size and type; complete reads the bucket', async () => {
  const [slot] = await presign(app, tenant, reportId, [{ name: 'balanco.pdf', size: pdf.length }]);
  const url = new URL(slot!.uploadUrl);
  assert.is(url.origin, ENDPOINT);
  assert.is(url.pathname, `/statements/${slot!.key}`);
  assert.is(url.searchParams.get('X-Amz-Expires'), '900');
  assert.is(url.searchParams.get('X-Amz-SignedHeaders'), 'content-length;content-type;host');
  const bucket = nock(ENDPOINT)
    .head(`/statements/${slot!.key}`)
    .reply(200, undefined, { 'content-length': String(pdf.length) })
    .get(`/statements/${slot!.key}`)
    .reply(200, pdf);
  const reply = await complete([slot!.key]);
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.ok(bucket.isDone());
  const [batch] = await submittedBatches(app, reportId);
  assert.equal(
    batch.files.map((f: any) => [f.key, f.fileName, f.sizeBytes]),
    [[slot!.key, 'balanco.pdf', pdf.length]],
  );
});

test('a rejected file is deleted from the bucket; a bucket that does not answer is 502, nothing deleted', async () => {
  const [slot] = await presign(app, tenant, reportId, [{ name: 'x.pdf', size: 4 }]);
  const bucket = nock(ENDPOINT)
    .head(`/statements/${slot!.key}`)
    .reply(200, undefined, { 'content-length': '4' })
    .get(`/statements/${slot!.key}`)
    .reply(200, 'GIF8')
    .delete(`/statements/${slot!.key}`)
    .reply(204);
  const refused = await complete([slot!.key]);
  assert.equal(refused.body, { code: 400, message: M.onlyValidPdf });
  assert.ok(bucket.isDone());
  nock(ENDPOINT).head(`/statements/${slot!.key}`).reply(503, '<Error><Code>SlowDown</Code></Error>');
  const down = await complete([slot!.key]);
  assert.equal(down.body, { code: 502, message: M.storageUnavailable });
});

test.run();
