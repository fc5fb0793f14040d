import * as pkijs from 'pkijs';

/** An ICP-Brasil signature policy (PA) as a signature names it: OID, the policy's hash and where it is published. */
export interface SignaturePolicy {
  /** e.g. `AD-RB v1.3`. */
  name: string;
  oid: string;
  /** SHA-256 the signature-policy-identifier carries: the SignPolicyHash recorded inside the policy document (DOC-ICP-15.03, note 2). */
  hash: Buffer;
  uri: string;
}

/**
 * The PAdES policies of ICP-Brasil (DOC-ICP-15.03; list LPA_PAdES.der), version 1.3, in force since
 * 2025-07-23 (IN ITI nº 34/2025) until 2037-10-22. The hash is the SignPolicyHash inside the
 * policy's DER (the SHA-256 of its signPolicyHashAlg and signPolicyInfo), which is what ITI's
 * conformance checker compares; it is not the SHA-256 of the .der file the LPA lists (noted for
 * each, to check a downloaded copy). These values were taken from published implementations, NOT
 * recomputed here from the policy documents (the machine that wrote this had no access to
 * politicas.icpbrasil.gov.br): docs/signatures.md says how to check them.
 */
export const ICP_BRASIL_POLICIES = {
  /** PA_PAdES_AD_RB_v1_3.der (file SHA-256 23da544aef71f7a75dc85fa6e17a83875741e4baef41ec178258a5c86ace54dd). */
  'B-B': {
    name: 'AD-RB v1.3',
    oid: '2.16.76.1.7.1.11.1.3',
    hash: Buffer.from('23e4be4b9b362172e4ebb0e72b86a133ece5aad843d8651c6e38a0ba3f08fc60', 'hex'),
    uri: 'http://politicas.icpbrasil.gov.br/PA_PAdES_AD_RB_v1_3.der',
  },
  /** PA_PAdES_AD_RT_v1_3.der (file SHA-256 92a972e7c292bb884e98e650773d9e9876994effb43eb36199b06bf2864a677c). */
  'B-T': {
    name: 'AD-RT v1.3',
    oid: '2.16.76.1.7.1.12.1.3',
    hash: Buffer.from('21d6e8d9f85e5626dc71307337a7cabd6ffef8d085038746775cf0ce6ba4d3b5', 'hex'),
    uri: 'http://politicas.icpbrasil.gov.br/PA_PAdES_AD_RT_v1_3.der',
  },
} satisfies Record<'B-B' | 'B-T', SignaturePolicy>;

/** ICP-Brasil's certificate policy arc (DOC-ICP-04: 2.16.76.1.2.<type>.<n>, A1 = 2.16.76.1.2.1.n, A3 = 2.16.76.1.2.3.n). */
const ICP_BRASIL_CERTIFICATE_POLICY = /^2\.16\.76\.1\.2\./;
const CERTIFICATE_POLICIES = '2.5.29.32';

/**
 * Whether the signing certificate is an ICP-Brasil end-entity certificate: it carries a
 * certificate policy under 2.16.76.1.2 (the policies of ICP-Brasil's signature certificates).
 * The root is not enough to tell (a test chain can copy its name); the policy OID is what
 * ICP-Brasil's DOC-ICP-04 makes every signature certificate carry.
 */
export function isIcpBrasilCertificate(certificate: Buffer): boolean {
  const parsed = pkijs.Certificate.fromBER(new Uint8Array(certificate).buffer);
  const policies = parsed.extensions?.find((e) => e.extnID === CERTIFICATE_POLICIES)?.parsedValue as pkijs.CertificatePolicies | undefined;
  return !!policies?.certificatePolicies.some((p) => ICP_BRASIL_CERTIFICATE_POLICY.test(p.policyIdentifier));
}
