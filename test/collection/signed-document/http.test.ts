import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractSignature } from '@signpdf/utils';
import forge from 'node-forge';
import * as assert from 'uvu/assert';
import { sha256Hex, trailAttachmentName } from '../../../application/collection/signed-document/build.ts';
import { GENERATED_P12 } from '../../../application/collection/signed-document/certificate.ts';
import { SignedDocumentMessages } from '../../../domain/collection/kinds/signed-document.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../../support/db.ts';
import { provisionTenant, type TestTenant } from '../../support/identity.ts';
import { recentTrail } from '../../../projections/collection/trail-queries.ts';
import { eventually } from '../../support/wait.ts';
import { detached, pageCount, pageText, pdfsig } from './pdf-tools.ts';
import { copiesRecorded, signAs, signingCollection } from './support.ts';
import { poppler, suiteNeeding } from '../../support/system-tools.ts';

interface Ctx {
  dataDir: string;
  database: TestDatabase;
  app: TestApp;
  tenant: TestTenant;
}
const test = suiteNeeding<Ctx>('GET /v1/collections/{id}/items/{itemId}/signed-document: the signed copy over HTTP', [poppler('pdfsig'), poppler('pdfdetach'), poppler('pdftotext')]);

test.before(async (ctx) => {
  ctx.dataDir = mkdtempSync(join(tmpdir(), 'signed-copy-app-'));
  ctx.database = await createTestDatabase({ migrate: false });
  ctx.app = await startTestApp({}, { dataDir: ctx.dataDir, database: ctx.database });
  ctx.tenant = await provisionTenant(ctx.app);
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  await ctx.database?.drop();
  rmSync(ctx.dataDir, { recursive: true, force: true });
});

const path = (c: { collectionId: string; itemId: string }, query = '') => `/v1/collections/${c.collectionId}/items/${c.itemId}/signed-document${query}`;

async function download(ctx: Ctx, url: string) {
  const response = await fetch(ctx.app.url + url, { headers: { authorization: `Bearer ${ctx.tenant.token}` } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** SHA-256 of the DER of the certificate that signed `pdf`, read from the CMS in its /Contents. */
function signerFingerprint(pdf: Buffer): string {
  const { signature } = extractSignature(pdf);
  const message = forge.pkcs7.messageFromAsn1(forge.asn1.fromDer(signature)) as forge.pkcs7.PkcsSignedData;
  return createHash('sha256')
    .update(Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(message.certificates[0]!)).getBytes(), 'binary'))
    .digest('hex');
}

test("JOINT, three parties: 404 in Portuguese until the last signs, then the signed PDF, valid for pdfsig, with the item's trail inside", async (ctx) => {
  const c = await signingCollection(ctx.app, ctx.tenant, { pages: 3 });
  const [a, b, last] = c.recipientIds;
  await signAs(ctx.app, ctx.tenant.organizationId, c, a!);
  await signAs(ctx.app, ctx.tenant.organizationId, c, b!);
  const early = await ctx.app.call('GET', path(c), { token: ctx.tenant.token });
  assert.equal([early.status, early.body], [404, { code: 404, message: SignedDocumentMessages.notGenerated }]);

  await signAs(ctx.app, ctx.tenant.organizationId, c, last!);
  const [copy] = await copiesRecorded(ctx.app, c);
  const reply = await download(ctx, path(c));
  assert.is(reply.status, 200);
  assert.is(reply.headers.get('content-type'), 'application/pdf');
  const sha256 = createHash('sha256').update(reply.bytes).digest('hex');
  assert.equal([reply.headers.get('etag'), reply.headers.get('x-content-sha256'), copy!.sha256], [`"${sha256}"`, sha256, sha256]);

  const report = await pdfsig(reply.bytes);
  assert.match(report, /Signature Validation: Signature is Valid\./);
  assert.match(report, /Total document signed/);
  assert.is(await pageCount(reply.bytes), 4);
  const evidence = await pageText(reply.bytes, 4);
  assert.match(evidence, new RegExp(`SHA-256 do documento original:\\s+${sha256Hex(c.original)}`));
  assert.match(evidence, /1\. Ana Sócia[\s\S]*e-mail pa\*\*\*@exemplo\.com\.br[\s\S]*3\. Carla Testemunha/);

  // The attached trail is the trail the API lists for the item, up to the completion.
  const attached = JSON.parse(await detached(reply.bytes, trailAttachmentName(c.itemId)));
  const listed = (await ctx.app.call('GET', `/v1/collections/${c.collectionId}/trail?take=500`, { token: ctx.tenant.token })).body.entries;
  const mine = listed.filter((e: { itemId: string | null; seq: number }) => e.itemId === c.itemId && e.seq <= attached.entries.at(-1).seq);
  assert.equal(
    attached.entries.map((e: any) => [e.seq, e.entry.action, e.entry.recipientId, e.entry.actorType, e.entry.occurredAt, e.entry.payload, e.entryHash, e.chainHash]),
    mine.map((e: any) => [e.seq, e.action, e.recipientId, e.actorType, e.occurredAt, e.payload, e.entryHash, e.chainHash]),
  );
  assert.is(attached.entries.at(-1).entry.action, 'SIGNATURE_COMPLETED');
  assert.equal(attached.entries.filter((e: any) => e.entry.action === 'SIGNATURE_COLLECTED').length, 3);

  // The download is in the trail (once its projection has it); the collection completed with the copy.
  await eventually(async () => (await recentTrail(ctx.app.app.db, ctx.tenant.organizationId, c.collectionId, 1))[0]?.action === 'ITEM_FILE_DOWNLOADED', {
    timeoutMs: 20_000,
    what: 'the download in the trail',
  });
  const after = (await ctx.app.call('GET', `/v1/collections/${c.collectionId}/trail?take=500`, { token: ctx.tenant.token })).body.entries;
  const downloaded = after.find((e: { action: string }) => e.action === 'ITEM_FILE_DOWNLOADED');
  assert.equal([downloaded?.itemId, downloaded?.recipientId, downloaded?.payload], [c.itemId, null, { file: 'SIGNED_DOCUMENT', sha256 }]);
  assert.ok(after.some((e: { action: string }) => e.action === 'SIGNATURE_DOCUMENT_GENERATED'));
  assert.ok(after.some((e: { action: string }) => e.action === 'COLLECTION_COMPLETED'));
});

test('INDIVIDUAL: one copy per party by recipientId, each with only that party; none named is a 400', async (ctx) => {
  const c = await signingCollection(ctx.app, ctx.tenant, { mode: 'INDIVIDUAL', parties: 2 });
  for (const recipientId of c.recipientIds) await signAs(ctx.app, ctx.tenant.organizationId, c, recipientId);
  await copiesRecorded(ctx.app, c, 2);
  const none = await ctx.app.call('GET', path(c), { token: ctx.tenant.token });
  assert.equal([none.status, none.body.message], [400, SignedDocumentMessages.recipientRequired]);
  const [first, second] = await Promise.all(c.recipientIds.map((id) => download(ctx, path(c, `?recipientId=${id}`))));
  assert.equal([first!.status, second!.status], [200, 200]);
  assert.is.not(first!.headers.get('etag'), second!.headers.get('etag'));
  const trail = JSON.parse(await detached(first!.bytes, trailAttachmentName(c.itemId)));
  assert.is(trail.recipientId, c.recipientIds[0]);
  assert.ok(trail.entries.every((e: any) => e.entry.recipientId === null || e.entry.recipientId === c.recipientIds[0]));
  assert.match(await pdfsig(second!.bytes), /Signature is Valid/);
});

test('bad ids are 400, another organization gets 404, and nothing is recorded for them', async (ctx) => {
  const c = await signingCollection(ctx.app, ctx.tenant, { parties: 1 });
  assert.is((await ctx.app.call('GET', `/v1/collections/nope/items/${c.itemId}/signed-document`, { token: ctx.tenant.token })).status, 400);
  assert.is((await ctx.app.call('GET', path(c, '?recipientId=xyz'), { token: ctx.tenant.token })).status, 400);
  const other = await provisionTenant(ctx.app, { name: 'Outra' });
  const foreign = await ctx.app.call('GET', path(c), { token: other.token });
  assert.is(foreign.status, 404);
});

test('the certificate generated into DATA_DIR on the first start signs again after a restart over the same DATA_DIR', async (ctx) => {
  const before = readFileSync(join(ctx.dataDir, GENERATED_P12), 'utf8');
  const c1 = await signingCollection(ctx.app, ctx.tenant, { parties: 1 });
  await signAs(ctx.app, ctx.tenant.organizationId, c1, c1.recipientIds[0]!);
  await copiesRecorded(ctx.app, c1);
  const first = await download(ctx, path(c1));

  await ctx.app.stop();
  ctx.app = await startTestApp({}, { dataDir: ctx.dataDir, database: ctx.database });
  ctx.tenant = await provisionTenant(ctx.app, { name: 'Depois do reinício' });
  const c2 = await signingCollection(ctx.app, ctx.tenant, { parties: 1 });
  await signAs(ctx.app, ctx.tenant.organizationId, c2, c2.recipientIds[0]!);
  await copiesRecorded(ctx.app, c2);
  const second = await download(ctx, path(c2));
  assert.is(readFileSync(join(ctx.dataDir, GENERATED_P12), 'utf8'), before);
  assert.is(signerFingerprint(second.bytes), signerFingerprint(first.bytes));
  assert.match(await pdfsig(second.bytes), /Signature is Valid/);
});

test.run();
