import { X509Certificate } from 'node:crypto';
import * as pkijs from 'pkijs';
import { exchangeBytes } from './http.ts';

const OID = { authorityInfoAccess: '1.3.6.1.5.5.7.1.1', ocsp: '1.3.6.1.5.5.7.48.1', crlDistributionPoints: '2.5.29.31' };

/** How one certificate's revocation status was established for the validation data. */
export interface RevocationStatus {
  subject: string;
  /**
   * OCSP / CRL: a response saying "good" was fetched and embedded; TRUST_ANCHOR: a self-signed
   * certificate (validated by trusting it, nothing to fetch); NO_ENDPOINT: the certificate names
   * no OCSP responder and no CRL; UNAVAILABLE: endpoints named, none answered usably (detail says why).
   */
  source: 'OCSP' | 'CRL' | 'TRUST_ANCHOR' | 'NO_ENDPOINT' | 'UNAVAILABLE';
  detail?: string;
}

export interface ValidationData {
  certificates: Buffer[];
  /** DER OCSPResponse, as a PDF's DSS /OCSPs holds them. */
  ocsps: Buffer[];
  /** DER CertificateList. */
  crls: Buffer[];
  statuses: RevocationStatus[];
}

/** A certificate of the chain is revoked: nothing signed with it (or stamped by it) should be issued. */
export class RevokedCertificateError extends Error {
  constructor(subject: string, how: string) {
    super(`the certificate "${subject}" is revoked (${how})`);
    this.name = 'RevokedCertificateError';
  }
}

const own = (bytes: Uint8Array): ArrayBuffer => new Uint8Array(bytes).buffer;

function urls(certificate: pkijs.Certificate): { ocsp: string[]; crl: string[] } {
  const extension = (id: string) => certificate.extensions?.find((e) => e.extnID === id)?.parsedValue as unknown;
  const http = (name: pkijs.GeneralName) => (name.type === 6 && /^http:\/\//i.test(String(name.value)) ? [String(name.value)] : []);
  const aia = extension(OID.authorityInfoAccess) as pkijs.InfoAccess | undefined;
  const cdp = extension(OID.crlDistributionPoints) as pkijs.CRLDistributionPoints | undefined;
  return {
    ocsp: (aia?.accessDescriptions ?? []).filter((d) => d.accessMethod === OID.ocsp).flatMap((d) => http(d.accessLocation)),
    crl: (cdp?.distributionPoints ?? []).flatMap((p) => (Array.isArray(p.distributionPoint) ? p.distributionPoint.flatMap(http) : [])),
  };
}

/** OCSP over HTTP POST (RFC 6960 A.1): the response, verified against the issuer, if it says good. */
async function ocspStatus(url: string, certificate: pkijs.Certificate, issuer: pkijs.Certificate, subject: string, timeoutMs: number): Promise<Buffer> {
  const request = new pkijs.OCSPRequest();
  await request.createForCertificate(certificate, { hashAlgorithm: 'SHA-1', issuerCertificate: issuer });
  const answer = await exchangeBytes({ url, method: 'POST', body: Buffer.from(request.toSchema(true).toBER()), headers: { 'content-type': 'application/ocsp-request' }, timeoutMs });
  const response = pkijs.OCSPResponse.fromBER(own(answer));
  if (response.responseStatus.valueBlock.valueDec !== 0 || !response.responseBytes) throw new Error(`OCSP status ${response.responseStatus.valueBlock.valueDec}`);
  const basic = pkijs.BasicOCSPResponse.fromBER(own(response.responseBytes.response.valueBlock.valueHexView));
  if (!(await basic.verify({ trustedCerts: [issuer] }))) throw new Error('the OCSP response is not signed by the issuer or its responder');
  const { isForCertificate, status } = await basic.getCertificateStatus(certificate, issuer);
  if (!isForCertificate) throw new Error('the OCSP response is about another certificate');
  if (status === 1) throw new RevokedCertificateError(subject, `OCSP ${url}`);
  if (status !== 0) throw new Error('OCSP status unknown');
  return answer;
}

/** The CRL at `url`, verified against the issuer, if it does not list the certificate. */
async function crlStatus(url: string, certificate: pkijs.Certificate, issuer: pkijs.Certificate, subject: string, timeoutMs: number): Promise<Buffer> {
  const answer = await exchangeBytes({ url, method: 'GET', timeoutMs });
  const crl = pkijs.CertificateRevocationList.fromBER(own(answer));
  if (!(await crl.verify({ issuerCertificate: issuer }))) throw new Error('the CRL is not signed by the issuer');
  if (crl.isCertificateRevoked(certificate)) throw new RevokedCertificateError(subject, `CRL ${url}`);
  return answer;
}

/**
 * The validation data of certificate chains (a signer's, a TSA's) for a PAdES B-LT DSS: each
 * certificate that is not self-signed gets its issuer's OCSP answer (AIA) or, failing that, its
 * CRL (distribution points), fetched with a deadline each and checked (signature by the issuer,
 * status good). A certificate with no endpoint, or whose endpoints fail, is named in `statuses`
 * rather than failing the signature; a revoked one throws RevokedCertificateError.
 */
export async function collectValidationData(chains: Buffer[][], timeoutMs: number): Promise<ValidationData> {
  const all = new Map<string, Buffer>();
  for (const der of chains.flat()) all.set(der.toString('base64'), der);
  const certificates = [...all.values()];
  const x509 = certificates.map((der) => new X509Certificate(der));
  const data: ValidationData = { certificates, ocsps: [], crls: [], statuses: [] };
  for (const [index, der] of certificates.entries()) {
    const cert = x509[index]!;
    const subject = cert.subject.replace(/\n/g, ', ');
    // Self-signed first: checkIssued refuses an issuer whose key usage lacks keyCertSign, as a self-signed end-entity certificate's does.
    const selfSigned = cert.subject === cert.issuer && cert.verify(cert.publicKey);
    const issuerIndex = x509.findIndex((candidate) => cert.checkIssued(candidate) && cert.verify(candidate.publicKey));
    if (selfSigned) {
      data.statuses.push({ subject, source: 'TRUST_ANCHOR' });
      continue;
    }
    const parsed = pkijs.Certificate.fromBER(own(der));
    const endpoints = urls(parsed);
    if (!endpoints.ocsp.length && !endpoints.crl.length) {
      data.statuses.push({ subject, source: 'NO_ENDPOINT' });
      continue;
    }
    if (issuerIndex < 0) {
      data.statuses.push({ subject, source: 'UNAVAILABLE', detail: 'the issuer certificate is not in the chain' });
      continue;
    }
    const issuer = pkijs.Certificate.fromBER(own(certificates[issuerIndex]!));
    const failures: string[] = [];
    let done = false;
    for (const [source, list, fetch] of [
      ['OCSP', endpoints.ocsp, ocspStatus],
      ['CRL', endpoints.crl, crlStatus],
    ] as const) {
      for (const url of list) {
        if (done) break;
        try {
          (source === 'OCSP' ? data.ocsps : data.crls).push(await fetch(url, parsed, issuer, subject, timeoutMs));
          data.statuses.push({ subject, source });
          done = true;
        } catch (error) {
          if (error instanceof RevokedCertificateError) throw error;
          failures.push(`${url}: ${(error as Error).message}`);
        }
      }
    }
    if (!done) data.statuses.push({ subject, source: 'UNAVAILABLE', detail: failures.join('; ') });
  }
  return data;
}

/** Only certificates whose status could be established (or need none) leave the data complete: what makes a signature B-LT. */
export const validationComplete = (data: ValidationData) => data.statuses.every((s) => s.source !== 'UNAVAILABLE' && s.source !== 'NO_ENDPOINT');
