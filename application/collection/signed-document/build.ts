import { createHash } from 'node:crypto';
import { AFRelationship, PDFDocument } from 'pdf-lib';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { SignPdf } from '@signpdf/signpdf';
import { SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import { CadesSigner } from './cades.ts';
import type { SigningIdentity } from './certificate.ts';
import { addEvidencePages, type Evidence } from './evidence-page.ts';

export interface SignedCopyInput extends Omit<Evidence, 'originalSha256' | 'attachmentName'> {
  original: Uint8Array;
  /** The item's trail entries, attached as JSON inside the PDF. */
  trail: unknown;
}

export interface SignedCopy {
  bytes: Buffer;
  sha256: string;
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
 * readers): a PAdES B-B signature, SubFilter ETSI.CAdES.detached, its CMS made by CadesSigner
 * (cades.ts) with the ESS signing-certificate-v2 attribute PAdES requires.
 *
 * Every date inside comes from `generatedAt`, so the same input gives the same bytes (RSA PKCS#1
 * v1.5 is deterministic): a retry produces the copy it produced before.
 */
export async function buildSignedCopy(input: SignedCopyInput, identity: SigningIdentity): Promise<SignedCopy> {
  const original = await PDFDocument.load(input.original, { updateMetadata: false });
  const doc = await PDFDocument.create({ updateMetadata: false });
  for (const page of await doc.copyPages(original, original.getPageIndices())) doc.addPage(page);
  const attachmentName = trailAttachmentName(input.itemId);
  const last = await addEvidencePages(doc, { ...input, originalSha256: sha256Hex(input.original), attachmentName });
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
  const bytes = await new SignPdf().sign(unsigned, new CadesSigner(identity), input.generatedAt);
  return { bytes, sha256: sha256Hex(bytes) };
}
