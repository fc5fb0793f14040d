import { createHash, X509Certificate } from 'node:crypto';
import { AFRelationship, PDFDocument } from 'pdf-lib';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { SignPdf } from '@signpdf/signpdf';
import { SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import { collectValidationData, validationComplete, type ValidationData } from '../../../platform/timestamp/revocation.ts';
import type { TimestampAuthority } from '../../../platform/timestamp/rfc3161.ts';
import type { SignedCopySignature } from '../../../domain/collection/kinds/signature.ts';
import { CadesSigner } from './cades.ts';
import type { SigningIdentity } from './certificate.ts';
import { appendDss } from './dss.ts';
import { addEvidencePages, type Evidence } from './evidence-page.ts';
import { ICP_BRASIL_POLICIES, isIcpBrasilCertificate } from './icp-brasil.ts';

export interface SignedCopyInput extends Omit<Evidence, 'originalSha256' | 'attachmentName' | 'signature'> {
  original: Uint8Array;
  /** The item's trail entries, attached as JSON inside the PDF. */
  trail: unknown;
}

export interface SignedCopy {
  bytes: Buffer;
  sha256: string;
  signature: SignedCopySignature;
}

/** How the copies are signed beyond the certificate: the TSA (B-T, B-LT) and the bound on each revocation fetch. */
export interface SigningOptions {
  tsa: TimestampAuthority | null;
  revocationTimeoutMs: number;
}

function signerRevocation(data: ValidationData | null): SignedCopySignature['signerRevocation'] {
  if (!data) return 'NOT_COLLECTED';
  if (data.statuses.every((s) => s.source === 'TRUST_ANCHOR' || s.source === 'NO_ENDPOINT')) return 'NO_ENDPOINT';
  return validationComplete(data) ? 'EMBEDDED' : 'INCOMPLETE';
}

export const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
export const trailAttachmentName = (itemId: string) => `trilha-${itemId}.json`;

/**
 * Room for the CMS signature: one 2048-bit certificate and signature take ~1.6 KB; a configured
 * PKCS#12 may bring its chain, so twice the library's default.
 */
const SIGNATURE_BYTES = 16_384;

/**
 * The signed copy: the original's pages, the evidence page(s), the trail as an embedded JSON file,
 * then ONE signature over the whole file (per-party incremental signatures look altered in common
 * readers): a PAdES signature, SubFilter ETSI.CAdES.detached, its CMS made by CadesSigner
 * (cades.ts) with the ESS signing-certificate-v2 attribute PAdES requires.
 *
 * - No TSA: B-B. Every date inside comes from `generatedAt`, so the same input gives the same
 *   bytes (RSA PKCS#1 v1.5 is deterministic): a retry produces the copy it produced before.
 * - A TSA: the signature carries a timestamp over its value (B-T), then a DSS appended as an
 *   incremental update carries both chains and their OCSP responses or CRLs (B-LT when every
 *   certificate's status is in it). The signer's chain is checked before the evidence page is
 *   drawn, so the page says what its revocation data is; the TSA's chain is known only once the
 *   token arrives. A revoked certificate in either chain stops the copy (RevokedCertificateError).
 * - An ICP-Brasil certificate: the signature-policy-identifier of AD-RB (B-B) or AD-RT (B-T).
 */
export async function buildSignedCopy(input: SignedCopyInput, identity: SigningIdentity, options: SigningOptions): Promise<SignedCopy> {
  const { tsa } = options;
  const policy = isIcpBrasilCertificate(identity.certificates[0]!) ? ICP_BRASIL_POLICIES[tsa ? 'B-T' : 'B-B'] : null;
  const signerData = tsa ? await collectValidationData([identity.certificates], options.revocationTimeoutMs) : null;
  const revocation = signerRevocation(signerData);
  const original = await PDFDocument.load(input.original, { updateMetadata: false });
  const doc = await PDFDocument.create({ updateMetadata: false });
  for (const page of await doc.copyPages(original, original.getPageIndices())) doc.addPage(page);
  const attachmentName = trailAttachmentName(input.itemId);
  const last = await addEvidencePages(doc, {
    ...input,
    originalSha256: sha256Hex(input.original),
    attachmentName,
    signature: { timestampAuthority: tsa ? new URL(tsa.url).host : null, policy: policy && `${policy.name} (${policy.oid})`, signerRevocation: revocation, sandbox: identity.provenance.sandbox },
  });
  await doc.attach(Buffer.from(JSON.stringify(input.trail, null, 2)), attachmentName, {
    mimeType: 'application/json',
    description: 'Trilha de auditoria do item',
    creationDate: input.generatedAt,
    modificationDate: input.generatedAt,
    afRelationship: AFRelationship.Data,
  });
  doc.setTitle(`${input.documentName} (cópia assinada)`);
  doc.setProducer('credit-analysis-service');
  doc.setCreationDate(input.generatedAt);
  doc.setModificationDate(input.generatedAt);
  pdflibAddPlaceholder({
    pdfPage: last,
    reason: 'Cópia assinada com as evidências das assinaturas eletrônicas',
    contactInfo: '',
    name: identity.subject,
    location: 'BR',
    signingTime: input.generatedAt,
    signatureLength: SIGNATURE_BYTES,
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
  });
  // The placeholder must be found verbatim in the file: no object streams.
  const unsigned = Buffer.from(await doc.save({ useObjectStreams: false }));
  const signer = new CadesSigner(identity, { tsa, policy });
  const signed = await new SignPdf().sign(unsigned, signer, input.generatedAt);
  const signature: SignedCopySignature = {
    level: 'B-B',
    timestampedAt: null,
    timestampAuthority: null,
    policy: policy && `${policy.name} (${policy.oid})`,
    signerRevocation: revocation,
    validationData: [],
    provenance: identity.provenance,
  };
  if (!tsa || !signer.timestamp || !signerData) return { bytes: signed, sha256: sha256Hex(signed), signature };
  // The token often carries only the TSA's own certificate: the configured anchors complete its chain.
  const tsaData = await collectValidationData([[...signer.timestamp.certificates, ...tsa.trustAnchors]], options.revocationTimeoutMs);
  const known = new Set(signerData.certificates.map((c) => c.toString('base64')));
  const fresh = tsaData.certificates.map((c, index) => ({ c, status: tsaData.statuses[index]! })).filter(({ c }) => !known.has(c.toString('base64')));
  const data: ValidationData = {
    certificates: [...signerData.certificates, ...fresh.map(({ c }) => c)],
    ocsps: [...signerData.ocsps, ...tsaData.ocsps],
    crls: [...signerData.crls, ...tsaData.crls],
    statuses: [...signerData.statuses, ...fresh.map(({ status }) => status)],
  };
  const bytes = await appendDss(signed, data);
  return {
    bytes,
    sha256: sha256Hex(bytes),
    signature: {
      ...signature,
      level: validationComplete(data) ? 'B-LT' : 'B-T',
      timestampedAt: signer.timestamp.genTime.toISOString(),
      timestampAuthority: new X509Certificate(signer.timestamp.signerCertificate).subject.replace(/\n/g, ', '),
      validationData: data.statuses,
    },
  };
}
