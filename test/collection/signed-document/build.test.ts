import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { buildSignedCopy, sha256Hex, trailAttachmentName, type SignedCopy, type SignedCopyInput } from '../../../application/collection/signed-document/build.ts';
import { loadSigningIdentity, type SigningIdentity } from '../../../application/collection/signed-document/certificate.ts';
import { maskEmail, maskPhone } from '../../../application/collection/signed-document/copies.ts';
import { loadConfig } from '../../../config/index.ts';
import { contractPdf, detached, opensslCms, pageCount, pageText, pdfsig } from './pdf-tools.ts';
import { poppler, suiteNeeding } from '../../support/system-tools.ts';

interface Ctx {
  dataDir: string;
  identity: SigningIdentity;
  input: SignedCopyInput;
  signed: SignedCopy;
}
const test = suiteNeeding<Ctx>('the signed copy: original pages, evidence page, trail attached, one signature pdfsig verifies', [
  poppler('pdfsig'),
  poppler('pdfdetach'),
  poppler('pdftotext'),
  { command: 'openssl', install: 'apt-get install -y openssl' },
]);

/** No TSA: B-B, the default. */
const B_B = { tsa: null, revocationTimeoutMs: 5000 };

const TRAIL = { format: 'collection-item-trail/1', entries: [{ seq: 3, entry: { action: 'SIGNATURE_COLLECTED', payload: { order: 1 } }, entryHash: 'a'.repeat(64), chainHash: 'b'.repeat(64) }] };

test.before(async (ctx) => {
  ctx.dataDir = mkdtempSync(join(tmpdir(), 'signed-copy-cert-'));
  ctx.identity = loadSigningIdentity(loadConfig({ DATA_DIR: ctx.dataDir }));
  ctx.input = {
    original: await contractPdf(20),
    documentName: 'Contrato de crédito.pdf',
    collectionId: '6561a1b2c3d4e5f601234567',
    itemId: '6561a1b2c3d4e5f601234568',
    provider: 'interno',
    completedAt: '2026-11-23T16:59:30.000Z',
    generatedAt: new Date('2026-11-23T17:00:00.000Z'),
    parties: [
      {
        name: 'Ana Sócia',
        verifiedContact: `e-mail ${maskEmail('ana.socia@padaria.example')}`,
        signedAt: '2026-11-23T16:50:00.000Z',
        ip: '203.0.113.7',
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/132.0',
      },
      { name: 'Bruno 李 Garantidor', verifiedContact: `telefone ${maskPhone('+5511999998888')}`, signedAt: '2026-11-23T16:59:30.000Z', ip: null, userAgent: null },
    ],
    trail: TRAIL,
  };
  ctx.signed = await buildSignedCopy(ctx.input, ctx.identity, B_B);
});
test.after((ctx) => rmSync(ctx.dataDir, { recursive: true, force: true }));

test('pdfsig: one valid signature covering the whole document, by the service certificate', async (ctx) => {
  const report = await pdfsig(ctx.signed.bytes);
  assert.match(report, /Signature #1:/);
  assert.not.match(report, /Signature #2:/);
  assert.match(report, /Signature Validation: Signature is Valid\./);
  assert.match(report, /Total document signed/);
  assert.match(report, /Signature Type: ETSI\.CAdES\.detached/);
  assert.match(report, new RegExp(`Signer Certificate Common Name: ${ctx.identity.subject}`));
  assert.is(ctx.signed.sha256, sha256Hex(ctx.signed.bytes));
});

test('PAdES B-B: the CMS carries content-type, message-digest and ESS signing-certificate-v2, no signing-time; OpenSSL verifies it', async (ctx) => {
  const { verified, printed, der } = await opensslCms(ctx.signed.bytes);
  assert.match(verified, /Verification successful/);
  assert.match(printed, /id-smime-aa-signingCertificateV2 \(1\.2\.840\.113549\.1\.9\.16\.2\.47\)/);
  assert.match(printed, /contentType \(1\.2\.840\.113549\.1\.9\.3\)/);
  assert.match(printed, /messageDigest \(1\.2\.840\.113549\.1\.9\.4\)/);
  assert.not.match(printed, /signingTime/, 'PAdES takes the time from the signature dictionary');
  assert.ok(der.includes(Buffer.from(ctx.identity.fingerprint, 'hex')), "signing-certificate-v2 names the signer certificate's SHA-256");
});

test('a byte changed inside the signed range is detected', async (ctx) => {
  const tampered = Buffer.from(ctx.signed.bytes);
  // The Producer's first letter, "c" (UTF-16BE hex 0063), becomes "d": the file still parses.
  const producer = '/Producer <FEFF006';
  const at = tampered.indexOf(producer);
  assert.ok(at > 0 && tampered[at + producer.length] === '3'.charCodeAt(0));
  tampered.write('4', at + producer.length);
  const report = await pdfsig(tampered);
  assert.not.match(report, /Signature is Valid/);
  assert.match(report, /Digest Mismatch/);
});

test('the original 20 pages come first, then the evidence page in Portuguese', async (ctx) => {
  assert.is(await pageCount(ctx.signed.bytes), 21);
  assert.match(await pageText(ctx.signed.bytes, 20), /página 20 de 20/);
  const evidence = await pageText(ctx.signed.bytes, 21);
  assert.match(evidence, /Evidências da assinatura eletrônica/);
  assert.match(evidence, new RegExp(`SHA-256 do documento original:\\s+${sha256Hex(ctx.input.original)}`));
  assert.match(evidence, /Contrato de crédito\.pdf/);
  assert.match(evidence, new RegExp(ctx.input.collectionId));
  assert.match(evidence, new RegExp(ctx.input.itemId));
  assert.match(evidence, /Provedor de assinatura: interno/);
  assert.match(evidence, /1\. Ana Sócia/);
  assert.match(evidence, /e-mail an\*\*\*@padaria\.example/);
  assert.not.match(evidence, /ana\.socia@/);
  // A character the standard font cannot draw is replaced, not fatal.
  assert.match(evidence, /2\. Bruno \? Garantidor/);
  assert.match(evidence, /telefone \+55\*{7}8888/);
  assert.match(evidence, /Endereço IP: 203\.0\.113\.7/);
  assert.match(evidence, /Endereço IP: não informado/);
  assert.match(evidence, /Firefox\/132\.0/);
  assert.match(evidence, /23\/11\/2026 13:50/);
  // Without TSA_URL the page says the signature is B-B and whose clock dates it.
  assert.match(evidence, /Nível: PAdES B-B, sem carimbo do tempo/);
  assert.match(evidence, /Hora da assinatura: a do relógio do serviço/);
  assert.is(ctx.signed.signature.level, 'B-B');
  assert.is(ctx.signed.signature.timestampedAt, null);
});

test('the trail is an embedded JSON file, extracted by pdfdetach as it was given', async (ctx) => {
  const json = await detached(ctx.signed.bytes, trailAttachmentName(ctx.input.itemId));
  assert.equal(JSON.parse(json), TRAIL);
});

test('the same input gives the same bytes (a retry reproduces the copy)', async (ctx) => {
  const again = await buildSignedCopy(ctx.input, ctx.identity, B_B);
  assert.is(again.sha256, ctx.signed.sha256);
});

test.run();
