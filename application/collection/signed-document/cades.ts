import { createHash, createSign } from 'node:crypto';
import forge from 'node-forge';
import { Signer } from '@signpdf/utils';
import type { SigningIdentity } from './certificate.ts';

const { asn1 } = forge;
type Node = forge.asn1.Asn1;

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  sha256: '2.16.840.1.101.3.4.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
};

const U = asn1.Class.UNIVERSAL;
const seq = (value: Node[]) => asn1.create(U, asn1.Type.SEQUENCE, true, value);
const oid = (id: string) => asn1.create(U, asn1.Type.OID, false, asn1.oidToDer(id).getBytes());
const octets = (bytes: Buffer) => asn1.create(U, asn1.Type.OCTETSTRING, false, bytes.toString('binary'));
const one = () => asn1.create(U, asn1.Type.INTEGER, false, asn1.integerToDer(1).getBytes());
const tagged = (tag: number, value: Node[]) => asn1.create(asn1.Class.CONTEXT_SPECIFIC, tag, true, value);
const der = (node: Node) => Buffer.from(asn1.toDer(node).getBytes(), 'binary');
const parse = (bytes: Buffer) => asn1.fromDer(forge.util.createBuffer(bytes.toString('binary')));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest();
/** SHA-256 as an AlgorithmIdentifier: parameters absent (RFC 5754). */
const sha256Algorithm = () => seq([oid(OID.sha256)]);
const attribute = (type: string, value: Node) => seq([oid(type), asn1.create(U, asn1.Type.SET, true, [value])]);

/** The members of a DER SET OF, in ascending order of their encodings (X.690 11.6), as a verifier re-encodes them. */
const sortedSetOf = (nodes: Node[]) => nodes.map(der).sort(Buffer.compare).map(parse);

/** issuer Name and serialNumber of a certificate, straight from its DER (TBSCertificate: [0] version?, serial, signature, issuer). */
function issuerAndSerial(certificate: Buffer): { issuer: Node; serial: Node } {
  const tbs = (parse(certificate).value as Node[])[0]!.value as Node[];
  const fields = tbs[0]!.tagClass === asn1.Class.CONTEXT_SPECIFIC ? tbs.slice(1) : tbs;
  return { serial: fields[0]!, issuer: fields[2]! };
}

/**
 * ESS signing-certificate-v2 (RFC 5035): the SHA-256 of the signer's certificate and its issuer and
 * serial, so the signature names the certificate it was made with (what PAdES B-B requires).
 */
function signingCertificateV2(certificate: Buffer): Node {
  const { issuer, serial } = issuerAndSerial(certificate);
  // ESSCertIDv2 {certHash, issuerSerial {GeneralNames {directoryName [4] Name}, serial}}; hashAlgorithm is sha256 by default, so absent.
  const essCertId = seq([octets(sha256(certificate)), seq([seq([tagged(4, [issuer])]), serial])]);
  return attribute(OID.signingCertificateV2, seq([seq([essCertId])]));
}

/**
 * A detached CMS SignedData for a PAdES B-B signature (SubFilter ETSI.CAdES.detached, ETSI EN
 * 319 142-1): SHA-256 and RSA PKCS#1 v1.5 (deterministic: the same file signs to the same bytes),
 * signed attributes content-type, message-digest and ESS signing-certificate-v2, and no
 * signing-time attribute (PAdES takes the claimed time from the signature dictionary's /M). Built
 * with node-forge's ASN.1 encoder because its PKCS#7 signer cannot add signing-certificate-v2.
 */
export class CadesSigner extends Signer {
  constructor(private readonly identity: Pick<SigningIdentity, 'privateKeyPem' | 'certificates'>) {
    super();
  }

  override async sign(content: Buffer): Promise<Buffer> {
    const [certificate] = this.identity.certificates;
    if (!certificate) throw new Error('the signing identity has no certificate');
    const signedAttributes = sortedSetOf([
      attribute(OID.contentType, oid(OID.data)),
      attribute(OID.messageDigest, octets(sha256(content))),
      signingCertificateV2(certificate),
    ]);
    // The signature covers the attributes encoded as a SET (tag 0x31), not as the [0] they are stored under (RFC 5652 5.4).
    const signature = createSign('sha256').update(der(asn1.create(U, asn1.Type.SET, true, signedAttributes))).sign(this.identity.privateKeyPem);
    const { issuer, serial } = issuerAndSerial(certificate);
    const signerInfo = seq([
      one(),
      seq([issuer, serial]),
      sha256Algorithm(),
      tagged(0, signedAttributes),
      seq([oid(OID.rsaEncryption), asn1.create(U, asn1.Type.NULL, false, '')]),
      octets(signature),
    ]);
    const signedData = seq([
      one(),
      asn1.create(U, asn1.Type.SET, true, [sha256Algorithm()]),
      seq([oid(OID.data)]),
      tagged(0, sortedSetOf(this.identity.certificates.map(parse))),
      asn1.create(U, asn1.Type.SET, true, [signerInfo]),
    ]);
    return der(seq([oid(OID.signedData), tagged(0, [signedData])]));
  }
}
