import { createHash, createSign } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { Signer } from '@signpdf/utils';
import { requestTimestamp, type Timestamp, type TimestampAuthority } from '../../../platform/timestamp/rfc3161.ts';
import type { SigningIdentity } from './certificate.ts';
import type { SignaturePolicy } from './icp-brasil.ts';

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  sha256: '2.16.840.1.101.3.4.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signaturePolicyIdentifier: '1.2.840.113549.1.9.16.2.15',
  spUri: '1.2.840.113549.1.9.16.5.1',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
};

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();
const der = (value: { toBER(): ArrayBuffer }) => Buffer.from(value.toBER());
const own = (bytes: Uint8Array): ArrayBuffer => new Uint8Array(bytes).buffer;
/** SHA-256 as an AlgorithmIdentifier: parameters absent (RFC 5754; ICP-Brasil's DOC-ICP-15.03 asks the same). */
const sha256Algorithm = () => new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 });
const attribute = (type: string, value: asn1js.BaseBlock) => new pkijs.Attribute({ type, values: [value] });

/**
 * ESS signing-certificate-v2 (RFC 5035): the SHA-256 of the signer's certificate and its issuer and
 * serial, so the signature names the certificate it was made with (what PAdES B-B requires).
 */
function signingCertificateV2(certificate: Buffer, parsed: pkijs.Certificate): pkijs.Attribute {
  // ESSCertIDv2 {certHash, issuerSerial {GeneralNames {directoryName [4] Name}, serial}}; hashAlgorithm is sha256 by default, so absent.
  const issuerSerial = new pkijs.IssuerSerial({ issuer: new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: parsed.issuer })] }), serialNumber: parsed.serialNumber });
  const essCertId = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: sha256(certificate) }), issuerSerial.toSchema()] });
  return attribute(OID.signingCertificateV2, new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertId] })] }));
}

/**
 * signature-policy-identifier (RFC 5126 5.8.1): SignaturePolicyId {sigPolicyId, sigPolicyHash
 * {SHA-256, hash}, sigPolicyQualifiers {spuri}}, as DOC-ICP-15.03 asks of an ICP-Brasil signature.
 */
function signaturePolicyIdentifier(policy: SignaturePolicy): pkijs.Attribute {
  const hash = new asn1js.Sequence({ value: [sha256Algorithm().toSchema(), new asn1js.OctetString({ valueHex: policy.hash })] });
  const qualifier = new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: OID.spUri }), new asn1js.IA5String({ value: policy.uri })] });
  return attribute(OID.signaturePolicyIdentifier, new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: policy.oid }), hash, new asn1js.Sequence({ value: [qualifier] })] }));
}

/** The members of a DER SET OF, in ascending order of their encodings (X.690 11.6), as a verifier re-encodes them. */
const sortedByEncoding = <T extends { toSchema(): { toBER(): ArrayBuffer } }>(items: T[]) =>
  items
    .map((item) => ({ item, bytes: der(item.toSchema()) }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map(({ item }) => item);

export interface CadesOptions {
  /** With a TSA: the signature timestamp (PAdES B-T). */
  tsa?: TimestampAuthority | null;
  /** With a policy: the signature-policy-identifier attribute (ICP-Brasil AD-RB / AD-RT). */
  policy?: SignaturePolicy | null;
}

/**
 * A detached CMS SignedData for a PAdES signature (SubFilter ETSI.CAdES.detached, ETSI EN 319
 * 142-1), built with pkijs: SHA-256 and RSA PKCS#1 v1.5 by node:crypto (deterministic: without a
 * timestamp the same file signs to the same bytes), the certificates of the PKCS#12 (the full
 * chain it holds), signed attributes content-type, message-digest, ESS signing-certificate-v2 and,
 * with a policy, signature-policy-identifier; no signing-time attribute (PAdES takes the claimed
 * time from /M, and ICP-Brasil's policies forbid it). With a TSA, the unsigned attribute
 * signature-time-stamp-token: an RFC 3161 token over the signature value (B-T); the token is kept
 * in `timestamp` for the evidence and the validation data.
 */
export class CadesSigner extends Signer {
  timestamp: Timestamp | null = null;

  constructor(
    private readonly identity: Pick<SigningIdentity, 'privateKeyPem' | 'certificates'>,
    private readonly options: CadesOptions = {},
  ) {
    super();
  }

  override async sign(content: Buffer): Promise<Buffer> {
    const [certificate] = this.identity.certificates;
    if (!certificate) throw new Error('the signing identity has no certificate');
    const signer = pkijs.Certificate.fromBER(own(certificate));
    const attributes = [
      attribute(OID.contentType, new asn1js.ObjectIdentifier({ value: OID.data })),
      attribute(OID.messageDigest, new asn1js.OctetString({ valueHex: sha256(content) })),
      signingCertificateV2(certificate, signer),
    ];
    if (this.options.policy) attributes.push(signaturePolicyIdentifier(this.options.policy));
    const signedAttrs = new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes: sortedByEncoding(attributes) });
    // The signature covers the attributes encoded as a SET (tag 0x31), not as the [0] they are stored under (RFC 5652 5.4).
    const asSet = der(signedAttrs.toSchema());
    asSet[0] = 0x31;
    const signature = createSign('sha256').update(asSet).sign(this.identity.privateKeyPem);
    const signerInfo = new pkijs.SignerInfo({
      version: 1,
      sid: new pkijs.IssuerAndSerialNumber({ issuer: signer.issuer, serialNumber: signer.serialNumber }),
      digestAlgorithm: sha256Algorithm(),
      signedAttrs,
      signatureAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.rsaEncryption, algorithmParams: new asn1js.Null() }),
      signature: new asn1js.OctetString({ valueHex: signature }),
    });
    if (this.options.tsa) {
      // The imprint covers the signature value: the OCTET STRING's content (ETSI EN 319 122-1 5.3).
      this.timestamp = await requestTimestamp(this.options.tsa, signature);
      const token = pkijs.ContentInfo.fromBER(own(this.timestamp.token)).toSchema();
      signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({ type: 1, attributes: [attribute(OID.signatureTimeStampToken, token)] });
    }
    const signedData = new pkijs.SignedData({
      version: 1,
      digestAlgorithms: [sha256Algorithm()],
      encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
      certificates: sortedByEncoding(this.identity.certificates.map((c) => pkijs.Certificate.fromBER(own(c)))),
      signerInfos: [signerInfo],
    });
    return der(new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) }).toSchema());
  }
}
