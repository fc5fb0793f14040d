import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const openssl = (args: string[], cwd: string) => run('openssl', args, { cwd, maxBuffer: 16 * 1024 * 1024 });

/** What a test needs of Debian's openssl for these: `openssl ts`, `openssl ocsp`, `openssl ca`. */
export const OPENSSL_TOOL = { command: 'openssl', install: 'apt-get install -y openssl' };

/** A certificate the test CA issued: its files in the PKI's folder and its DER. */
export interface IssuedCertificate {
  name: string;
  certPath: string;
  keyPath: string;
  certPem: string;
  keyPem: string;
  der: Buffer;
  serialHex: string;
}

export interface SignerOptions {
  /** certificatePolicies OIDs (an ICP-Brasil A1 carries 2.16.76.1.2.1.n). */
  policies?: string[];
  /** AIA OCSP and CRL distribution point of this test PKI (default true); false: a certificate with no revocation endpoint. */
  revocation?: boolean;
  /** Issued by the intermediate CA (a chain of three) instead of the root. */
  intermediate?: boolean;
}

export interface TestTsa {
  /** `http://127.0.0.1:<port>/tsa`: RFC 3161 over HTTP, `openssl ts -reply` per request. */
  url: string;
  ocspUrl: string;
  crlUrl: string;
  /** The test root CA (PEM file) that issued the TSA's, the OCSP responder's and every signer's certificate. */
  caPath: string;
  ca: IssuedCertificate;
  intermediate: IssuedCertificate;
  tsaCertificate: IssuedCertificate;
  dir: string;
  /** Requests received per path (`/tsa`, `/ocsp`, `/crl`, `/intermediate.crl`). */
  requests: Record<string, number>;
  /** The next `n` timestamp requests are answered 503 (a TSA that fails, for the client's retries). */
  failNext(n: number): void;
  /** A signing certificate from this PKI as a PKCS#12 (3DES/SHA-1, what node-forge opens) with its chain. */
  issueSigner(name: string, options?: SignerOptions): Promise<IssuedCertificate & { p12Path: string; p12Password: string }>;
  /** Marks a certificate revoked for the OCSP responder and the next CRL. */
  revoke(certificate: IssuedCertificate): Promise<void>;
  stop(): Promise<void>;
}

export interface TestTsaOptions {
  /** Basic authentication the TSA demands (401 without it). */
  username?: string;
  password?: string;
}

/** GeneralizedTime-ish `YYMMDDHHMMSSZ` of openssl's CA index. */
const indexTime = (date: Date) => date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';

const body = (request: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

/**
 * A PKI made in the test with Debian's openssl in a temporary folder: a root CA, an intermediate
 * CA, a TSA certificate (EKU timeStamping, critical) and an OCSP responder certificate, and one
 * HTTP server on 127.0.0.1 answering
 *
 * - `POST /tsa` (application/timestamp-query) with `openssl ts -reply` (SHA-256, ESS signing-certificate-v2),
 * - `POST /ocsp` (application/ocsp-request) with `openssl ocsp -index` (the CA's index: good or revoked),
 * - `GET /crl` and `GET /intermediate.crl` with `openssl ca -gencrl` of each CA.
 *
 * Every certificate it issues points at these (AIA OCSP, CRL distribution point) unless asked not
 * to, so a B-LT signature can fetch its validation data with nothing leaving the machine.
 */
export async function startTestTsa(options: TestTsaOptions = {}): Promise<TestTsa> {
  const dir = mkdtempSync(join(tmpdir(), 'test-tsa-'));
  const requests: Record<string, number> = {};
  let failing = 0;
  let base = '';
  // Each CA keeps openssl's index (for `openssl ocsp -index` and `openssl ca -gencrl`) in a folder of its own.
  const caConfig = (ca: string) => `
[ ca ]
default_ca = this
[ this ]
dir = ${join(dir, ca)}
database = $dir/index.txt
crlnumber = $dir/crlnumber
certificate = ${join(dir, `${ca}.pem`)}
private_key = ${join(dir, `${ca}.key`)}
default_md = sha256
default_crl_days = 30
crl_extensions = crl_ext
[ crl_ext ]
authorityKeyIdentifier = keyid:always
`;
  const issuerOf = new Map<string, string>();
  let serial = 0x1000;

  async function issue(name: string, subject: string, extensions: string, issuer: string | null): Promise<IssuedCertificate> {
    const keyPath = join(dir, `${name}.key`);
    const certPath = join(dir, `${name}.pem`);
    writeFileSync(join(dir, `${name}.ext`), `[ ext ]\n${extensions}\n`);
    await openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', keyPath], dir);
    const serialHex = (serial++).toString(16).toUpperCase();
    if (issuer) {
      await openssl(['req', '-new', '-key', keyPath, '-subj', subject, '-out', join(dir, `${name}.csr`)], dir);
      await openssl(
        [
          'x509',
          '-req',
          '-in',
          `${name}.csr`,
          '-CA',
          `${issuer}.pem`,
          '-CAkey',
          `${issuer}.key`,
          '-set_serial',
          `0x${serialHex}`,
          '-days',
          '3650',
          '-sha256',
          '-extfile',
          `${name}.ext`,
          '-extensions',
          'ext',
          '-out',
          certPath,
        ],
        dir,
      );
    } else {
      // A root made with `req -x509` reads its extensions from a config of its own (makeCa writes it).
      await openssl(
        ['req', '-x509', '-new', '-key', keyPath, '-subj', subject, '-set_serial', `0x${serialHex}`, '-days', '3650', '-sha256', '-config', `${name}.cnf`, '-extensions', 'ext', '-out', certPath],
        dir,
      );
    }
    const certPem = readFileSync(certPath, 'utf8');
    const x509 = new X509Certificate(certPem);
    if (issuer) {
      issuerOf.set(serialHex, issuer);
      writeFileSync(join(dir, issuer, 'index.txt'), `V\t${indexTime(new Date(x509.validTo))}\t\t${serialHex}\tunknown\t${subject}\n`, { flag: 'a' });
    }
    return { name, certPath, keyPath, certPem, keyPem: readFileSync(keyPath, 'utf8'), der: Buffer.from(x509.raw), serialHex };
  }

  async function makeCa(name: string, subject: string, issuer: string | null): Promise<IssuedCertificate> {
    const caDir = join(dir, name);
    rmSync(caDir, { recursive: true, force: true });
    await run('mkdir', ['-p', caDir]);
    writeFileSync(join(caDir, 'index.txt'), '');
    writeFileSync(join(caDir, 'crlnumber'), '01\n');
    writeFileSync(join(dir, `${name}.ca.cnf`), caConfig(name));
    const extensions = ['basicConstraints = critical, CA:TRUE', 'keyUsage = critical, keyCertSign, cRLSign', 'subjectKeyIdentifier = hash'];
    if (issuer) extensions.push('authorityKeyIdentifier = keyid:always', `crlDistributionPoints = URI:${base}/crl`);
    // A root made with `req -x509` reads its extensions from a config file.
    writeFileSync(join(dir, `${name}.cnf`), `[ req ]\ndistinguished_name = dn\n[ dn ]\n[ ext ]\n${extensions.join('\n')}\n`);
    return issue(name, subject, extensions.join('\n'), issuer);
  }

  const revocationExtensions = (issuer: string) => [`authorityInfoAccess = OCSP;URI:${base}/ocsp`, `crlDistributionPoints = URI:${base}/${issuer === 'ca' ? 'crl' : 'intermediate.crl'}`];

  async function crl(ca: string): Promise<Buffer> {
    const out = join(dir, `${ca}.crl.pem`);
    await openssl(['ca', '-gencrl', '-config', `${ca}.ca.cnf`, '-out', out], dir);
    return (await openssl(['crl', '-in', out, '-outform', 'DER', '-out', `${ca}.crl.der`], dir), readFileSync(join(dir, `${ca}.crl.der`)));
  }

  let ocspSigner: IssuedCertificate;
  let ocspIntermediateSigner: IssuedCertificate;
  let sequence = 0;
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0]!;
    requests[path] = (requests[path] ?? 0) + 1;
    void (async () => {
      try {
        const answer = async (): Promise<[number, string, Buffer]> => {
          if (path === '/tsa' && request.method === 'POST') {
            if (options.username !== undefined) {
              const expected = `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64')}`;
              if (request.headers.authorization !== expected) return [401, 'text/plain', Buffer.from('unauthorized')];
            }
            if (failing > 0) {
              failing--;
              return [503, 'text/plain', Buffer.from('busy')];
            }
            if (request.headers['content-type'] !== 'application/timestamp-query') return [415, 'text/plain', Buffer.from('content type')];
            const n = ++sequence;
            writeFileSync(join(dir, `q${n}.tsq`), await body(request));
            await openssl(['ts', '-reply', '-config', 'tsa.cnf', '-section', 'tsa_config', '-queryfile', `q${n}.tsq`, '-out', `r${n}.tsr`], dir);
            return [200, 'application/timestamp-reply', readFileSync(join(dir, `r${n}.tsr`))];
          }
          if (path === '/ocsp' && request.method === 'POST') {
            const n = ++sequence;
            writeFileSync(join(dir, `o${n}.req`), await body(request));
            // Each CA answers for its own certificates (its index, its responder): which one the request asks about.
            const { stdout } = await openssl(['ocsp', '-reqin', `o${n}.req`, '-req_text'], dir);
            const asked = /Serial Number: ([0-9A-F]+)/i.exec(stdout)?.[1]?.toUpperCase() ?? '';
            const [ca, signer] = issuerOf.get(asked) === 'intermediate' ? ['intermediate', ocspIntermediateSigner] : ['ca', ocspSigner];
            await openssl(
              ['ocsp', '-index', join(ca, 'index.txt'), '-CA', `${ca}.pem`, '-rsigner', signer.certPath, '-rkey', signer.keyPath, '-reqin', `o${n}.req`, '-respout', `o${n}.resp`, '-ndays', '7'],
              dir,
            );
            return [200, 'application/ocsp-response', readFileSync(join(dir, `o${n}.resp`))];
          }
          if (path === '/crl' && request.method === 'GET') return [200, 'application/pkix-crl', await crl('ca')];
          if (path === '/intermediate.crl' && request.method === 'GET') return [200, 'application/pkix-crl', await crl('intermediate')];
          return [404, 'text/plain', Buffer.from('not found')];
        };
        const [status, type, bytes] = await answer();
        response.writeHead(status, { 'content-type': type, 'content-length': bytes.length }).end(bytes);
      } catch (error) {
        response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const ca = await makeCa('ca', '/C=BR/O=Teste/CN=AC Raiz de Teste', null);
  const intermediate = await makeCa('intermediate', '/C=BR/O=Teste/CN=AC Intermediaria de Teste', 'ca');
  const tsaCertificate = await issue(
    'tsa',
    '/C=BR/O=Teste/CN=Carimbo do Tempo de Teste',
    ['basicConstraints = critical, CA:FALSE', 'keyUsage = critical, digitalSignature, nonRepudiation', 'extendedKeyUsage = critical, timeStamping', ...revocationExtensions('ca')].join('\n'),
    'ca',
  );
  const responder = (name: string, issuer: string) =>
    issue(
      name,
      `/C=BR/O=Teste/CN=OCSP ${issuer}`,
      ['basicConstraints = critical, CA:FALSE', 'keyUsage = critical, digitalSignature', 'extendedKeyUsage = critical, OCSPSigning', 'noCheck = ignored'].join('\n'),
      issuer,
    );
  ocspSigner = await responder('ocsp', 'ca');
  ocspIntermediateSigner = await responder('ocsp-intermediate', 'intermediate');
  writeFileSync(join(dir, 'tsaserial'), '01\n');
  writeFileSync(
    join(dir, 'tsa.cnf'),
    `[ tsa_config ]
dir = ${dir}
serial = $dir/tsaserial
crypto_device = builtin
signer_cert = $dir/tsa.pem
certs = $dir/ca.pem
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.3.6.1.4.1.99999.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`,
  );

  return {
    url: `${base}/tsa`,
    ocspUrl: `${base}/ocsp`,
    crlUrl: `${base}/crl`,
    caPath: ca.certPath,
    ca,
    intermediate,
    tsaCertificate,
    dir,
    requests,
    failNext(n) {
      failing = n;
    },
    async issueSigner(name, signerOptions = {}) {
      const issuer = signerOptions.intermediate ? 'intermediate' : 'ca';
      const extensions = ['basicConstraints = critical, CA:FALSE', 'keyUsage = critical, digitalSignature, nonRepudiation', 'subjectKeyIdentifier = hash', 'authorityKeyIdentifier = keyid:always'];
      if (signerOptions.revocation !== false) extensions.push(...revocationExtensions(issuer));
      if (signerOptions.policies?.length) extensions.push(`certificatePolicies = ${signerOptions.policies.join(', ')}`);
      const issued = await issue(name, `/C=BR/O=Teste/CN=${name}`, extensions.join('\n'), issuer);
      const chain = join(dir, `${name}.chain.pem`);
      writeFileSync(chain, issuer === 'intermediate' ? intermediate.certPem + ca.certPem : ca.certPem);
      const p12Path = join(dir, `${name}.p12`);
      const p12Password = 'senha-de-teste';
      await openssl(
        [
          'pkcs12',
          '-export',
          '-inkey',
          issued.keyPath,
          '-in',
          issued.certPath,
          '-certfile',
          chain,
          '-passout',
          `pass:${p12Password}`,
          '-keypbe',
          'PBE-SHA1-3DES',
          '-certpbe',
          'PBE-SHA1-3DES',
          '-macalg',
          'sha1',
          '-out',
          p12Path,
        ],
        dir,
      );
      return { ...issued, p12Path, p12Password };
    },
    async revoke(certificate) {
      const issuer = issuerOf.get(certificate.serialHex) ?? 'ca';
      const index = join(dir, issuer, 'index.txt');
      const lines = readFileSync(index, 'utf8').split('\n');
      const revokedAt = indexTime(new Date());
      writeFileSync(index, lines.map((line) => (line.split('\t')[3] === certificate.serialHex ? line.replace(/^V\t([^\t]*)\t\t/, `R\t$1\t${revokedAt}\t`) : line)).join('\n'));
    },
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
