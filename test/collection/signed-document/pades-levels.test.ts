import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import * as assert from 'uvu/assert';
import { buildSignedCopy, type SignedCopy, type SignedCopyInput, type SigningOptions } from '../../../application/collection/signed-document/build.ts';
import { loadSigningIdentity } from '../../../application/collection/signed-document/certificate.ts';
import { ICP_BRASIL_POLICIES } from '../../../application/collection/signed-document/icp-brasil.ts';
import { loadConfig } from '../../../config/index.ts';
import { timestampAuthorityFrom } from '../../../platform/timestamp/rfc3161.ts';
import { poppler, suiteNeeding } from '../../support/system-tools.ts';
import { OPENSSL_TOOL, startTestTsa, type TestTsa } from '../../support/tsa.ts';
import { contractPdf, opensslCms, opensslTimestampVerify, pageText, pdfsig } from './pdf-tools.ts';

async function rejects(promise: Promise<unknown>, expected?: RegExp): Promise<void> {
  try {
    await promise;
  } catch (error) {
    if (expected) assert.match(String((error as Error).message), expected);
    return;
  }
  assert.unreachable('expected a failure');
}

interface Ctx {
  tsa: TestTsa;
  dir: string;
  input: SignedCopyInput;
  options: SigningOptions;
  /** The self-signed default certificate, with the TSA: B-LT, no revocation endpoint in the signer's chain. */
  selfSigned: SignedCopy;
  /** A certificate of the test PKI with OCSP and CRL endpoints under an intermediate CA and an ICP-Brasil A1 policy OID. */
  icp: SignedCopy;
}
const test = suiteNeeding<Ctx>('PAdES B-T and B-LT: a signature timestamp from a TSA and the validation data in a DSS, ICP-Brasil policies', [poppler('pdfsig'), poppler('pdftotext'), OPENSSL_TOOL]);

test.before(async (ctx) => {
  ctx.tsa = await startTestTsa();
  ctx.dir = mkdtempSync(join(tmpdir(), 'pades-levels-'));
  ctx.options = { tsa: timestampAuthorityFrom(loadConfig({ TSA_URL: ctx.tsa.url, TSA_CA_CERTS_PATH: ctx.tsa.caPath })), revocationTimeoutMs: 5000 };
  ctx.input = {
    original: await contractPdf(2),
    documentName: 'Contrato.pdf',
    collectionId: '6561a1b2c3d4e5f601234567',
    itemId: '6561a1b2c3d4e5f601234568',
    provider: 'interno',
    completedAt: '2026-11-23T16:59:30.000Z',
    generatedAt: new Date('2026-11-23T17:00:00.000Z'),
    parties: [{ name: 'Ana Sócia', verifiedContact: 'e-mail an***@exemplo.com.br', signedAt: '2026-11-23T16:50:00.000Z', ip: '203.0.113.7', userAgent: 'Firefox/132.0' }],
    trail: { format: 'collection-item-trail/1', entries: [] },
  };
  ctx.selfSigned = await buildSignedCopy(ctx.input, loadSigningIdentity(loadConfig({ DATA_DIR: ctx.dir })), ctx.options);
  const signer = await ctx.tsa.issueSigner('Empresa Exemplo A1', { intermediate: true, policies: ['2.16.76.1.2.1.1'] });
  ctx.icp = await buildSignedCopy(ctx.input, loadSigningIdentity(loadConfig({ DATA_DIR: ctx.dir, SIGNING_P12_PATH: signer.p12Path, SIGNING_P12_PASSWORD: signer.p12Password })), ctx.options);
});
test.after(async (ctx) => {
  await ctx.tsa?.stop();
  if (ctx.dir) rmSync(ctx.dir, { recursive: true, force: true });
});

/** The signature timestamp token inside the copy's CMS and the signature value it must cover. */
async function signatureTimestamp(copy: Buffer) {
  const { der } = await opensslCms(copy);
  const signedData = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(new Uint8Array(der).buffer).content });
  const signerInfo = signedData.signerInfos[0]!;
  const attribute = signerInfo.unsignedAttrs?.attributes.find((a) => a.type === '1.2.840.113549.1.9.16.2.14');
  return {
    token: attribute && Buffer.from((attribute.values[0] as asn1js.Sequence).toBER()),
    signatureValue: Buffer.from(signerInfo.signature.valueBlock.valueHexView),
    policy: signerInfo.signedAttrs?.attributes.find((a) => a.type === '1.2.840.113549.1.9.16.2.15'),
    signedAttributeTypes: signerInfo.signedAttrs!.attributes.map((a) => a.type),
    certificates: (signedData.certificates ?? []).length,
  };
}

test('self-signed default + TSA: pdfsig validates the signature; openssl verifies the CMS and the token over the signature value', async (ctx) => {
  const report = await pdfsig(ctx.selfSigned.bytes);
  assert.match(report, /Signature Validation: Signature is Valid\./);
  assert.match(report, /Signature Type: ETSI\.CAdES\.detached/);
  // This poppler (22.x) does not print the signature timestamp: the openssl checks below read it.
  const { verified } = await opensslCms(ctx.selfSigned.bytes);
  assert.match(verified, /Verification successful/);
  const stamp = await signatureTimestamp(ctx.selfSigned.bytes);
  assert.ok(stamp.token, 'the signature carries id-aa-signatureTimeStampToken');
  assert.match(await opensslTimestampVerify(stamp.token!, stamp.signatureValue, ctx.tsa.caPath), /Verification: OK/);
  // A token over anything else (here: the signature value with one bit changed) does not verify.
  const other = Buffer.from(stamp.signatureValue);
  other[0]! ^= 1;
  await rejects(opensslTimestampVerify(stamp.token!, other, ctx.tsa.caPath));
  assert.not.ok(stamp.policy, 'no ICP-Brasil policy for a certificate outside ICP-Brasil');
});

test('self-signed default + TSA: B-LT with a DSS; the API description and the evidence page say the chain has no revocation endpoint', async (ctx) => {
  const { signature } = ctx.selfSigned;
  assert.is(signature.level, 'B-LT');
  assert.is(signature.signerRevocation, 'NO_ENDPOINT');
  assert.ok(Math.abs(Date.parse(signature.timestampedAt!) - Date.now()) < 120_000, String(signature.timestampedAt));
  assert.match(signature.timestampAuthority!, /Carimbo do Tempo de Teste/);
  // The TSA's certificate has its OCSP response in the DSS; the roots are trust anchors.
  assert.ok(
    signature.validationData.some((s) => /Carimbo do Tempo/.test(s.subject) && s.source === 'OCSP'),
    JSON.stringify(signature.validationData),
  );
  const text = ctx.selfSigned.bytes.toString('latin1');
  assert.match(text, /\/Type \/DSS \/Certs \[[^\]]+\] \/OCSPs \[/);
  const evidence = await pageText(ctx.selfSigned.bytes, 3);
  assert.match(evidence, /PAdES B-T ou B-LT, com carimbo do tempo \(RFC 3161\) de 127\.0\.0\.1/);
  assert.match(evidence, /não publica endereço de revogação/);
});

test('ICP-Brasil A1 (policy 2.16.76.1.2.1.x) + TSA: AD-RT v1.3 policy identifier, no signing-time, full chain, OCSP of the signer chain embedded', async (ctx) => {
  const { signature } = ctx.icp;
  assert.is(signature.level, 'B-LT');
  assert.is(signature.signerRevocation, 'EMBEDDED');
  assert.is(signature.policy, 'AD-RT v1.3 (2.16.76.1.7.1.12.1.3)');
  const stamp = await signatureTimestamp(ctx.icp.bytes);
  assert.ok(stamp.policy);
  const [policyId, hash] = (stamp.policy!.values[0] as asn1js.Sequence).valueBlock.value as [asn1js.ObjectIdentifier, asn1js.Sequence];
  assert.is(policyId.valueBlock.toString(), ICP_BRASIL_POLICIES['B-T'].oid);
  assert.equal(Buffer.from((hash.valueBlock.value[1] as asn1js.OctetString).valueBlock.valueHexView), ICP_BRASIL_POLICIES['B-T'].hash);
  assert.not.ok(stamp.signedAttributeTypes.includes('1.2.840.113549.1.9.5'), 'no signing-time attribute');
  assert.is(stamp.certificates, 3, 'signer, intermediate and root');
  assert.match(await opensslTimestampVerify(stamp.token!, stamp.signatureValue, ctx.tsa.caPath), /Verification: OK/);
  assert.match((await opensslCms(ctx.icp.bytes)).verified, /Verification successful/);
  assert.match(await pdfsig(ctx.icp.bytes), /Signature Validation: Signature is Valid\./);
  assert.ok(ctx.tsa.requests['/ocsp']! >= 3, 'signer, intermediate and TSA statuses asked');
  assert.match(await pageText(ctx.icp.bytes, 3), /Política de assinatura ICP-Brasil: AD-RT v1\.3/);
});

test('ICP-Brasil without a TSA: B-B with the AD-RB v1.3 policy', async (ctx) => {
  const signer = await ctx.tsa.issueSigner('Empresa Sem Carimbo', { policies: ['2.16.76.1.2.1.1'] });
  const copy = await buildSignedCopy(ctx.input, loadSigningIdentity(loadConfig({ DATA_DIR: ctx.dir, SIGNING_P12_PATH: signer.p12Path, SIGNING_P12_PASSWORD: signer.p12Password })), {
    tsa: null,
    revocationTimeoutMs: 5000,
  });
  assert.is(copy.signature.level, 'B-B');
  assert.is(copy.signature.policy, 'AD-RB v1.3 (2.16.76.1.7.1.11.1.3)');
  const stamp = await signatureTimestamp(copy.bytes);
  assert.not.ok(stamp.token);
  assert.ok(stamp.policy, 'signature-policy-identifier present');
  assert.ok(Buffer.from(stamp.policy!.toSchema().toBER()).includes(ICP_BRASIL_POLICIES['B-B'].hash));
  assert.match(await pdfsig(copy.bytes), /Signature is Valid/);
});

test('a byte changed in the signed range of a B-LT copy fails pdfsig and openssl', async (ctx) => {
  const tampered = Buffer.from(ctx.selfSigned.bytes);
  const producer = '/Producer <FEFF006';
  const at = tampered.indexOf(producer);
  tampered.write('4', at + producer.length);
  assert.match(await pdfsig(tampered), /Digest Mismatch/);
  await rejects(opensslCms(tampered));
});

test('a revoked signing certificate stops the copy', async (ctx) => {
  const signer = await ctx.tsa.issueSigner('Empresa Revogada', { policies: ['2.16.76.1.2.1.1'] });
  await ctx.tsa.revoke(signer);
  const identity = loadSigningIdentity(loadConfig({ DATA_DIR: ctx.dir, SIGNING_P12_PATH: signer.p12Path, SIGNING_P12_PASSWORD: signer.p12Password }));
  await rejects(buildSignedCopy(ctx.input, identity, ctx.options), /revoked/);
});

test.run();
