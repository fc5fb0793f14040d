import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { Agent } from 'undici';
import { ConfigurationError, type Config } from '../../config/index.ts';
import { exchangeBytes, HttpExchangeError } from './http.ts';

const OID = {
  sha256: '2.16.840.1.101.3.4.2.1',
  sha1: '1.3.14.3.2.26',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  signedData: '1.2.840.113549.1.7.2',
  extKeyUsage: '2.5.29.37',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  signingCertificate: '1.2.840.113549.1.9.16.2.12',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
};

/** Where and how to ask for timestamps (TSA_* settings). */
export interface TimestampAuthority {
  url: string;
  username?: string;
  password?: string;
  /** PEM texts, for an HTTPS TSA that authenticates clients by certificate. */
  clientCertificate?: { cert: string; key: string };
  /** DER certificates the token's signer must chain to; empty: the chain is not checked. */
  trustAnchors: Buffer[];
  policyOid?: string;
  timeoutMs: number;
  retries: number;
}

/** A verified RFC 3161 timestamp token. */
export interface Timestamp {
  /** The TimeStampToken: a CMS ContentInfo (SignedData over TSTInfo), DER. */
  token: Buffer;
  /** The TSA's time (TSTInfo genTime). */
  genTime: Date;
  /** TSTInfo serialNumber, hex. */
  serialNumber: string;
  /** The TSA policy the token was issued under. */
  policy: string;
  /** SHA-256 the token's imprint carries (of the data timestamped). */
  imprint: Buffer;
  /** The certificate that signed the token (DER) and every certificate the token carries. */
  signerCertificate: Buffer;
  certificates: Buffer[];
}

/** The TSA refused, answered something that is not a valid token for our request, or could not be reached. */
export class TimestampError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimestampError';
  }
}

/** PEM text with one or more certificates -> their DER. */
export function certificatesFromPem(pem: string): Buffer[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)].map((m) => Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'));
}

const readSetting = (key: string, path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigurationError(`${key}=${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
};

/** The TSA the configuration names, or null without TSA_URL (no timestamps: PAdES B-B). Files are read now, so a wrong path stops the start. */
export function timestampAuthorityFrom(config: Config): TimestampAuthority | null {
  if (!config.TSA_URL) return null;
  let url: URL;
  try {
    url = new URL(config.TSA_URL);
  } catch {
    throw new ConfigurationError(`TSA_URL=${config.TSA_URL} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigurationError(`TSA_URL must be http:// or https:// (got ${url.protocol})`);
  if (!!config.TSA_CLIENT_CERT_PATH !== !!config.TSA_CLIENT_KEY_PATH) throw new ConfigurationError('TSA_CLIENT_CERT_PATH and TSA_CLIENT_KEY_PATH go together');
  const trustAnchors = config.TSA_CA_CERTS_PATH ? certificatesFromPem(readSetting('TSA_CA_CERTS_PATH', config.TSA_CA_CERTS_PATH)) : [];
  if (config.TSA_CA_CERTS_PATH && !trustAnchors.length) throw new ConfigurationError(`TSA_CA_CERTS_PATH=${config.TSA_CA_CERTS_PATH} holds no PEM certificate`);
  return {
    url: url.toString(),
    username: config.TSA_USERNAME,
    password: config.TSA_PASSWORD,
    clientCertificate:
      config.TSA_CLIENT_CERT_PATH && config.TSA_CLIENT_KEY_PATH
        ? { cert: readSetting('TSA_CLIENT_CERT_PATH', config.TSA_CLIENT_CERT_PATH), key: readSetting('TSA_CLIENT_KEY_PATH', config.TSA_CLIENT_KEY_PATH) }
        : undefined,
    trustAnchors,
    policyOid: config.TSA_POLICY_OID,
    timeoutMs: config.TSA_TIMEOUT_MS,
    retries: config.TSA_RETRIES,
  };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();
const view = (buffer: ArrayBuffer | Uint8Array) => Buffer.from(buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer));
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && timingSafeEqual(a, b);
/** A copy in an ArrayBuffer of its own, what pkijs's parsers and WebCrypto take (a Buffer may be a slice of a shared pool). */
const own = (bytes: Uint8Array): ArrayBuffer => new Uint8Array(bytes).buffer;
const integerHex = (value: asn1js.Integer) => view(value.valueBlock.valueHexView).toString('hex');

/** DER TimeStampReq for the SHA-256 of `data`: a 64-bit random nonce, certReq true (the token carries the TSA certificate, so it verifies alone). */
export function timestampRequest(data: Uint8Array, policyOid?: string): { der: Buffer; nonce: Buffer } {
  // A positive INTEGER: the first byte's top bit clear.
  const nonce = randomBytes(8);
  nonce[0]! &= 0x7f;
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({ hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }), hashedMessage: new asn1js.OctetString({ valueHex: sha256(data) }) }),
    nonce: new asn1js.Integer({ valueHex: nonce }),
    certReq: true,
    ...(policyOid ? { reqPolicy: policyOid } : {}),
  });
  return { der: view(request.toSchema().toBER()), nonce };
}

/** The certHash of the ESS signing-certificate(-v2) signed attribute and its hash algorithm (RFC 2634, RFC 5035). */
function essCertHash(signerInfo: pkijs.SignerInfo): { algorithm: string; hash: Buffer } | null {
  for (const attribute of signerInfo.signedAttrs?.attributes ?? []) {
    if (attribute.type !== OID.signingCertificate && attribute.type !== OID.signingCertificateV2) continue;
    // SigningCertificate(V2) ::= SEQUENCE { certs SEQUENCE OF ESSCertID(v2), ... }; the first names the signer.
    const first = ((attribute.values[0] as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence).valueBlock.value[0] as asn1js.Sequence;
    const fields = first.valueBlock.value;
    if (attribute.type === OID.signingCertificate) return { algorithm: 'sha1', hash: view((fields[0] as asn1js.OctetString).valueBlock.valueHexView) };
    // ESSCertIDv2 ::= SEQUENCE { hashAlgorithm DEFAULT sha256, certHash OCTET STRING, issuerSerial OPTIONAL }
    const algorithm = fields[0] instanceof asn1js.Sequence ? new pkijs.AlgorithmIdentifier({ schema: fields[0] }).algorithmId : OID.sha256;
    const hash = fields.find((f) => f instanceof asn1js.OctetString) as asn1js.OctetString;
    const name = { [OID.sha256]: 'sha256', '2.16.840.1.101.3.4.2.2': 'sha384', '2.16.840.1.101.3.4.2.3': 'sha512' }[algorithm];
    if (!name) throw new TimestampError(`the token's ESS certificate id uses an unknown hash (${algorithm})`);
    return { algorithm: name, hash: view(hash.valueBlock.valueHexView) };
  }
  return null;
}

export interface TokenCheck {
  /** The data the token must timestamp (its SHA-256 is the imprint). */
  data: Uint8Array;
  /** The nonce our request carried (absent when verifying a stored token). */
  nonce?: Buffer;
  /** DER certificates the signer must chain to (at genTime); empty: the chain is not checked. */
  trustAnchors?: Buffer[];
}

/**
 * Checks a TimeStampToken as RFC 3161 asks a client to, and answers what it says: the CMS
 * signature over the TSTInfo (pkijs), the imprint = SHA-256 of `data`, the nonce, the signer's
 * extended key usage (timeStamping only, critical), the ESS signing-certificate(-v2) naming that
 * very certificate, and, with trust anchors, its chain at genTime. Throws TimestampError.
 */
export async function verifyTimestampToken(token: Uint8Array, check: TokenCheck): Promise<Timestamp> {
  let signedData: pkijs.SignedData;
  let tstInfo: pkijs.TSTInfo;
  try {
    const contentInfo = pkijs.ContentInfo.fromBER(own(token));
    if (contentInfo.contentType !== OID.signedData) throw new Error(`content type ${contentInfo.contentType}`);
    signedData = new pkijs.SignedData({ schema: contentInfo.content });
    if (signedData.encapContentInfo.eContentType !== OID.tstInfo || !signedData.encapContentInfo.eContent) throw new Error('no TSTInfo inside');
    tstInfo = pkijs.TSTInfo.fromBER(signedData.encapContentInfo.eContent.getValue());
  } catch (error) {
    throw new TimestampError(`the timestamp token cannot be read (${(error as Error).message})`);
  }
  const imprint = view(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView);
  if (tstInfo.messageImprint.hashAlgorithm.algorithmId !== OID.sha256 || !sameBytes(imprint, sha256(check.data))) {
    throw new TimestampError('the timestamp token covers other data than the one asked for (message imprint differs)');
  }
  if (check.nonce && (!tstInfo.nonce || integerHex(tstInfo.nonce) !== check.nonce.toString('hex').replace(/^(00)+/, ''))) {
    throw new TimestampError("the timestamp token does not carry our request's nonce (a replayed or foreign answer)");
  }
  const trustAnchors = (check.trustAnchors ?? []).map((der) => pkijs.Certificate.fromBER(own(der)));
  let result: pkijs.SignedDataVerifyResult;
  try {
    result = await signedData.verify({ signer: 0, data: own(check.data), checkChain: trustAnchors.length > 0, trustedCerts: trustAnchors, extendedMode: true });
  } catch (error) {
    throw new TimestampError(`the timestamp token's signature does not verify (${(error as Error).message})`);
  }
  if (!result.signatureVerified || !result.signerCertificate) throw new TimestampError("the timestamp token's signature does not verify");
  const signer = result.signerCertificate;
  const signerDer = view(signer.toSchema().toBER());
  const eku = signer.extensions?.find((e) => e.extnID === OID.extKeyUsage);
  const purposes = (eku?.parsedValue as pkijs.ExtKeyUsage | undefined)?.keyPurposes ?? [];
  if (!eku?.critical || purposes.length !== 1 || purposes[0] !== OID.timeStamping) {
    throw new TimestampError("the timestamp token's signer is not a TSA certificate (extended key usage timeStamping, alone and critical, is required)");
  }
  const ess = essCertHash(signedData.signerInfos[0]!);
  if (!ess || !sameBytes(ess.hash, createHash(ess.algorithm).update(signerDer).digest())) {
    throw new TimestampError("the timestamp token's ESS signing-certificate does not name the certificate that signed it");
  }
  const certificates = (signedData.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate).map((c) => view(c.toSchema().toBER()));
  return { token: view(token), genTime: tstInfo.genTime, serialNumber: integerHex(tstInfo.serialNumber), policy: tstInfo.policy, imprint, signerCertificate: signerDer, certificates };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** PKIStatus texts (RFC 3161 2.4.2) for a refusal's message. */
const STATUS = ['granted', 'grantedWithMods', 'rejection', 'waiting', 'revocationWarning', 'revocationNotification'];

/**
 * Asks the TSA for a timestamp of `data` (its SHA-256) and verifies the answer before returning
 * it (verifyTimestampToken, with our nonce and TSA_CA_CERTS_PATH's anchors). A network error, a
 * timeout, 429 or a 5xx is tried again (TSA_RETRIES, pauses of 250 ms doubling); a refusal or an
 * invalid token is not (the TSA would answer the same).
 */
export async function requestTimestamp(tsa: TimestampAuthority, data: Uint8Array): Promise<Timestamp> {
  const headers: Record<string, string> = { 'content-type': 'application/timestamp-query', accept: 'application/timestamp-reply' };
  if (tsa.username !== undefined) headers.authorization = `Basic ${Buffer.from(`${tsa.username}:${tsa.password ?? ''}`).toString('base64')}`;
  const dispatcher = tsa.clientCertificate ? new Agent({ connect: { ...tsa.clientCertificate, ...(tsa.trustAnchors.length ? { ca: tsa.trustAnchors.map(pem) } : {}) } }) : undefined;
  try {
    for (let attempt = 0; ; attempt++) {
      const { der, nonce } = timestampRequest(data, tsa.policyOid);
      let answer: Buffer;
      try {
        answer = await exchangeBytes({ url: tsa.url, method: 'POST', body: der, headers, timeoutMs: tsa.timeoutMs, dispatcher });
      } catch (error) {
        if (error instanceof HttpExchangeError && error.transient && attempt < tsa.retries) {
          await pause(250 * 2 ** attempt);
          continue;
        }
        throw new TimestampError(`the TSA could not be reached (${(error as Error).message}${attempt ? `, after ${attempt + 1} attempts` : ''})`);
      }
      return await verifyAnswer(answer, data, nonce, tsa.trustAnchors);
    }
  } finally {
    await dispatcher?.close();
  }
}

const pem = (der: Buffer) => `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE-----\n`;

async function verifyAnswer(answer: Buffer, data: Uint8Array, nonce: Buffer, trustAnchors: Buffer[]): Promise<Timestamp> {
  let response: pkijs.TimeStampResp;
  try {
    response = pkijs.TimeStampResp.fromBER(own(answer));
  } catch (error) {
    throw new TimestampError(`the TSA's answer is not a TimeStampResp (${(error as Error).message})`);
  }
  const status = response.status.status;
  if ((status !== pkijs.PKIStatus.granted && status !== pkijs.PKIStatus.grantedWithMods) || !response.timeStampToken) {
    const text = response.status.statusStrings?.map((s) => s.valueBlock.value).join('; ');
    throw new TimestampError(`the TSA refused the request (status ${STATUS[status] ?? status}${text ? `: ${text}` : ''})`);
  }
  return verifyTimestampToken(view(response.timeStampToken.toSchema().toBER()), { data, nonce, trustAnchors });
}
