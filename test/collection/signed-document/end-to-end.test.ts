import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import canonicalizeCjs from 'canonicalize';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { provisionTenant, type TestTenant } from '../../support/identity.ts';
import { poppler, suiteNeeding } from '../../support/system-tools.ts';
import { OPENSSL_TOOL, startTestTsa, type TestTsa } from '../../support/tsa.ts';
import { exportOf, waitForSeals } from '../../collection-trail/support.ts';
import { uploadFile } from '../../registry/support.ts';
import { codeSentTo, page, stepOf, submit, tokenOf } from '../signature/http-support.ts';
import { newCnpj } from '../support.ts';
import { copiesRecorded } from './support.ts';
import {
  contractPdf,
  dssStreams,
  opensslCms,
  opensslOcspText,
  opensslSignatureTimestamp,
  opensslSubject,
  opensslTimestampText,
  opensslTimestampVerify,
  pageCount,
  pageText,
  pdfsig,
} from './pdf-tools.ts';

const canonicalize = canonicalizeCjs as unknown as (input: unknown) => string;
const run = promisify(execFile);

/**
 * Issue 36 end to end, over HTTP only: a service whose TSA_URL is the test's openssl TSA and whose
 * signing certificate (SIGNING_P12_*) the test CA issued with OCSP endpoints; a contract signed by
 * two parties on the recipient page; the signed copy downloaded and checked by tools that share
 * nothing with the signer (pdfsig, openssl); the collection's trail exported, its seals'
 * timestamps checked, and the offline verifier run on it as an auditor would.
 */
interface Ctx {
  tsa: TestTsa;
  app: TestApp;
  tenant: TestTenant;
  dir: string;
  collectionId: string;
  itemId: string;
  copy: Buffer;
  signature: any;
}
const test = suiteNeeding<Ctx>('end to end over HTTP: a PAdES B-LT copy with a signature timestamp and a trail whose seals the TSA timestamped', [
  poppler('pdfsig'),
  poppler('pdftotext'),
  OPENSSL_TOOL,
]);
const PARTIES = [
  { name: 'Ana Sócia', email: 'ana@exemplo.com.br' },
  { name: 'Bruno Avalista', email: 'bruno@exemplo.com.br' },
];

test.before(async (ctx) => {
  ctx.tsa = await startTestTsa();
  ctx.dir = mkdtempSync(join(tmpdir(), 'signatures-e2e-'));
  const signer = await ctx.tsa.issueSigner('Financeira Exemplo A1', { intermediate: true, policies: ['2.16.76.1.2.1.1'] });
  ctx.app = await startTestApp({
    TSA_URL: ctx.tsa.url,
    TSA_CA_CERTS_PATH: ctx.tsa.caPath,
    SIGNING_P12_PATH: signer.p12Path,
    SIGNING_P12_PASSWORD: signer.p12Password,
    TRAIL_SEAL_MAX_DELAY_S: '2',
  });
  ctx.tenant = await provisionTenant(ctx.app);
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  await ctx.tsa?.stop();
  if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
});

test('two parties sign on the recipient page; the copy is downloaded over HTTP', async (ctx) => {
  const { app, tenant } = ctx;
  const registry = await app.call('POST', '/v1/registry', { token: tenant.token, body: { document: newCnpj(), name: 'Padaria Exemplo Ltda', entityType: 'COMPANY' } });
  assert.is(registry.status, 201, JSON.stringify(registry.body));
  const uploaded = await uploadFile(app, tenant.token, `/v1/registry/${registry.body.id}/documents`, { bytes: await contractPdf(2), fileName: 'Contrato de crédito.pdf', type: 'application/pdf' });
  assert.is(uploaded.status, 201, JSON.stringify(uploaded.body));
  const created = await app.call('POST', '/v1/collections', {
    token: tenant.token,
    body: {
      registryId: registry.body.id,
      items: [{ key: 'contrato', kind: 'SIGNATURE', title: 'Contrato de crédito', config: { signature: { mode: 'JOINT', flow: 'SIGNATURE', registryDocumentId: uploaded.body.id } } }],
      recipients: PARTIES,
      notificationChannel: 'NONE',
      send: true,
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  ctx.collectionId = created.body.id;
  ctx.itemId = created.body.items[0].id;
  const tokens: string[] = created.body.links.map(tokenOf);

  for (const [index, party] of PARTIES.entries()) {
    const token = tokens[index]!;
    assert.is(stepOf(await page(app, token)), 'code', party.name);
    assert.is((await submit(app, token, ctx.itemId, 'code', { channel: 'EMAIL' })).status, 303);
    const code = await codeSentTo(app, ctx.collectionId, party.email, 'EMAIL');
    assert.is((await submit(app, token, ctx.itemId, 'verify', { code })).status, 303);
    assert.is((await submit(app, token, ctx.itemId, 'sign')).status, 303);
  }

  // The copy is made by the worker (TSA and OCSP round trips): wait in the stream (polling the route would hit its rate limit), then download.
  const [copy] = await copiesRecorded(app, { collectionId: ctx.collectionId, itemId: ctx.itemId, recipientIds: [], original: Buffer.alloc(0) });
  const reply = await fetch(`${app.url}/v1/collections/${ctx.collectionId}/items/${ctx.itemId}/signed-document`, { headers: { authorization: `Bearer ${tenant.token}` } });
  assert.is(reply.status, 200);
  ctx.copy = Buffer.from(await reply.arrayBuffer());
  assert.is(reply.headers.get('x-content-sha256'), createHash('sha256').update(ctx.copy).digest('hex'));
  assert.is(copy!.sha256, reply.headers.get('x-content-sha256'));
  ctx.signature = copy!.signature;
  assert.is(ctx.signature.level, 'B-LT');
  assert.is(ctx.signature.signerRevocation, 'EMBEDDED');
  assert.is(ctx.signature.policy, 'AD-RT v1.3 (2.16.76.1.7.1.12.1.3)');
});

test('pdfsig validates the signature; openssl verifies the CMS over the signed ranges', async (ctx) => {
  const report = await pdfsig(ctx.copy);
  assert.match(report, /Signature Validation: Signature is Valid\./);
  assert.match(report, /Signature Type: ETSI\.CAdES\.detached/);
  assert.match(report, /Signer Certificate Common Name: Financeira Exemplo A1/);
  assert.match((await opensslCms(ctx.copy)).verified, /Verification successful/);
});

test('the CMS holds a signature timestamp whose imprint is the SHA-256 of the signature value, and whose time the API reports', async (ctx) => {
  const { token, signatureValue } = await opensslSignatureTimestamp((await opensslCms(ctx.copy)).der);
  assert.ok(token, 'id-smime-aa-timeStampToken among the unsigned attributes');
  const stamp = await opensslTimestampText(token!);
  assert.is(stamp.imprintHex, createHash('sha256').update(signatureValue).digest('hex'));
  assert.match(stamp.text, /TSA: DirName:\/C=BR\/O=Teste\/CN=Carimbo do Tempo de Teste/);
  assert.match(await opensslTimestampVerify(token!, signatureValue, ctx.tsa.caPath), /Verification: OK/);
  // openssl prints whole seconds; the token's genTime is whole seconds too (accuracy 1 s).
  assert.is(ctx.signature.timestampedAt, stamp.time.toISOString());
});

test('the DSS holds the chains (signer, intermediate, TSA) and good OCSP answers for the signer and the TSA', async (ctx) => {
  const { certs, ocsps, crls } = dssStreams(ctx.copy);
  const subjects = await Promise.all(certs.map(opensslSubject));
  for (const cn of ['Financeira Exemplo A1', 'AC Intermediaria de Teste', 'AC Raiz de Teste', 'Carimbo do Tempo de Teste']) {
    assert.ok(
      subjects.some((s) => s.includes(`CN=${cn}`) || s.includes(`CN = ${cn}`)),
      `${cn} in ${subjects.join('; ')}`,
    );
  }
  assert.ok(ocsps.length >= 2, `${ocsps.length} OCSP responses`);
  const statuses = await Promise.all(ocsps.map(opensslOcspText));
  for (const text of statuses) assert.match(text, /OCSP Response Status: successful[\s\S]*Cert Status: good/);
  const serials = statuses.map((text) => /Serial Number: ([0-9A-F]+)/.exec(text)?.[1]);
  // The intermediate CA names only a CRL distribution point: its status is a CRL.
  assert.ok(crls.length >= 1, 'a CRL for the intermediate');
  assert.ok(serials.length === new Set(serials).size, 'one answer per certificate');
});

test('the evidence page (pdftotext) gives the signing time to the timestamp, names the TSA and the policy', async (ctx) => {
  const evidence = await pageText(ctx.copy, await pageCount(ctx.copy));
  assert.match(evidence, /PAdES B-T ou B-LT, com carimbo do tempo \(RFC 3161\) de 127\.0\.0\.1/);
  assert.match(evidence, /Hora da assinatura:\s+a do carimbo do tempo embutido na assinatura digital, emitido depois desta página/);
  // The page cannot hold the time of a token that covers it (docs/signatures.md): it prints the service's
  // clock reading the token follows, which the token's time (read by openssl) must not precede.
  const after = /portanto após .*?· (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)/.exec(evidence.replace(/\s+/g, ' '))?.[1];
  assert.ok(after, evidence);
  assert.ok(Date.parse(after!) <= Date.parse(ctx.signature.timestampedAt) + 1000, `${after} then ${ctx.signature.timestampedAt}`);
  assert.match(evidence, /Política de assinatura ICP-Brasil: AD-RT v1\.3/);
  assert.match(evidence, /1\. Ana Sócia[\s\S]*2\. Bruno Avalista/);
});

/** The offline verifier as an auditor runs it: its own process, the export, the published keys and the TSA's root. */
async function verifier(ctx: Ctx, doc: unknown): Promise<{ code: number; stdout: string }> {
  writeFileSync(join(ctx.dir, 'export.json'), JSON.stringify(doc));
  writeFileSync(join(ctx.dir, 'keys.json'), JSON.stringify((await ctx.app.call('GET', '/.well-known/collection-trail-keys')).body));
  return run(process.execPath, ['--import', 'tsx', 'scripts/verify-trail.ts', join(ctx.dir, 'export.json'), join(ctx.dir, 'keys.json'), '--tsa-ca', ctx.tsa.caPath]).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
}

test("the trail's seals carry TSA timestamps; the offline verifier reports each seal's verified time; a dropped tail entry fails it", async (ctx) => {
  await waitForSeals(ctx.app, ctx.collectionId);
  const exported = await exportOf(ctx.app, ctx.tenant.token, ctx.collectionId);
  assert.is(exported.status, 200);
  const doc = JSON.parse(exported.text);
  const seals = doc.entries.filter((e: any) => e.seal).map((e: any) => e.seal);
  assert.ok(seals.length >= 3, `${seals.length} seals`);
  assert.ok(
    doc.entries.some((e: any) => e.entry.action === 'ITEM_FILE_DOWNLOADED'),
    'the download is in the trail',
  );
  // Every seal's token, checked by openssl: its imprint is SHA-256 of the seal's JCS (docs/collection-trail.md).
  for (const seal of seals) {
    assert.ok(seal.timestamp, `seal at ${seal.seq} has its token`);
    const { signature, collectionId, seq, chainHash, signedAt, keyId } = seal;
    const digested = Buffer.from(canonicalize({ collectionId, seq, chainHash, signedAt, keyId, signature }), 'utf8');
    assert.match(await opensslTimestampVerify(Buffer.from(seal.timestamp, 'base64'), digested, ctx.tsa.caPath), /Verification: OK/);
  }

  const verified = await verifier(ctx, doc);
  assert.is(verified.code, 0, verified.stdout);
  assert.match(verified.stdout, /^VERIFIED in/m);
  for (const seal of seals) {
    const time = (await opensslTimestampText(Buffer.from(seal.timestamp, 'base64'))).time.toISOString();
    // The verifier prints the token's genTime with its milliseconds; openssl prints whole seconds.
    const line = new RegExp(`^seal at entry ${seal.seq}, key ${seal.keyId}: existed by ${time.slice(0, 19)}(\\.\\d+)?Z \\(timestamp of .*CN=Carimbo do Tempo de Teste\\)$`, 'm');
    assert.match(verified.stdout, line);
  }

  const cut = { ...doc, entries: doc.entries.slice(0, -1), entryCount: doc.entryCount - 1 };
  const failed = await verifier(ctx, cut);
  assert.is(failed.code, 1, failed.stdout);
  assert.match(failed.stdout, new RegExp(`^FAIL the export head names entry ${doc.entries.length}, the export ends at entry ${doc.entries.length - 1}: entries were dropped from its end$`, 'm'));
  assert.match(failed.stdout, /^NOT VERIFIED in/m);
});

test.run();
