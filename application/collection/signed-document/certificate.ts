import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';
import { ConfigurationError, loadOrCreateSecret, type Config } from '../../../config/index.ts';
import { createOnce } from '../../../config/secrets.ts';
import type { Provenance } from '../../../domain/shared/provenance.ts';

/** The PKCS#12 the signed copies are signed with, opened once to check it holds a usable key. */
export interface SigningIdentity {
  p12: Buffer;
  password: string;
  /** Where it came from, for logs and errors. */
  source: string;
  /** The certificate's subject common name and SHA-256 fingerprint (of its DER), for the docs and logs. */
  subject: string;
  fingerprint: string;
  /** What the CAdES signer uses: the private key (PKCS#1 PEM) and every certificate of the PKCS#12 (DER), the signer's first. */
  privateKeyPem: string;
  certificates: Buffer[];
  /** The certificate's origin: one the operator configured, or the self-signed default (a sandbox signature, proving nothing to a third party). */
  provenance: Provenance;
}

/** A PKCS#12 the operator configured (SIGNING_P12_PATH or SIGNING_P12_BASE64). */
export const CONFIGURED_CERTIFICATE: Provenance = { provider: 'pkcs12', sandbox: false };
/** The certificate generated into DATA_DIR: nobody vouches for it, so what it signs is a sandbox document. */
export const SELF_SIGNED_CERTIFICATE: Provenance = { provider: 'self-signed', sandbox: true };

/** Names in DATA_DIR: the PKCS#12 kept as base64 text (the form SIGNING_P12_BASE64 takes) and its password. */
export const GENERATED_P12 = 'signing-certificate.p12.base64';
const GENERATED_PASSWORD = 'signing-certificate-password';
const SUBJECT = [
  { name: 'commonName', value: 'Analise de Credito - copias assinadas' },
  { name: 'organizationName', value: 'Analise de Credito' },
  { name: 'countryName', value: 'BR' },
];
const VALIDITY_YEARS = 10;

/**
 * A self-signed RSA 2048 certificate for document signing in a PKCS#12 under `password`. The key
 * pair comes from node:crypto (native, ~100 ms) rather than forge's JavaScript generator (seconds).
 */
export function generateP12(password: string, now = new Date()): Buffer {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  // A positive serial: the first byte's top bit clear.
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  cert.validity.notBefore = now;
  cert.validity.notAfter = new Date(now.getTime() + VALIDITY_YEARS * 365.25 * 86_400_000);
  cert.setSubject(SUBJECT);
  cert.setIssuer(SUBJECT);
  cert.setExtensions([{ name: 'basicConstraints', cA: false, critical: true }, { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true }, { name: 'subjectKeyIdentifier' }]);
  cert.sign(key, forge.md.sha256.create());
  const asn1 = forge.pkcs12.toPkcs12Asn1(key, [cert], password, { algorithm: '3des', friendlyName: 'signed-copies' });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}

/** Opens the PKCS#12 as the signer will, so a wrong password or a file without key stops the start, not a signing. */
// forge names every OID it knows; these two are among them.
const KEY_BAG = forge.pki.oids.pkcs8ShroudedKeyBag!;
const CERT_BAG = forge.pki.oids.certBag!;
const bagsOf = (parsed: forge.pkcs12.Pkcs12Pfx, bagType: string): forge.pkcs12.Bag[] => parsed.getBags({ bagType })[bagType] ?? [];

function describe(p12: Buffer, password: string, source: string, provenance: Provenance = CONFIGURED_CERTIFICATE): SigningIdentity {
  let bags;
  try {
    const parsed = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(forge.util.createBuffer(p12.toString('binary'))), false, password);
    bags = { keys: bagsOf(parsed, KEY_BAG), certs: bagsOf(parsed, CERT_BAG) };
  } catch (error) {
    throw new ConfigurationError(`${source}: the PKCS#12 cannot be opened (${(error as Error).message}); check SIGNING_P12_PASSWORD`);
  }
  const key = bags.keys[0]?.key as forge.pki.rsa.PrivateKey | undefined;
  const cert = bags.certs.find((bag) => {
    const publicKey = bag.cert?.publicKey as forge.pki.rsa.PublicKey | undefined;
    return key && publicKey && publicKey.n.equals(key.n);
  })?.cert;
  if (!key || !cert) throw new ConfigurationError(`${source}: the PKCS#12 must hold an RSA private key (shrouded) and its certificate`);
  const derOf = (c: forge.pki.Certificate) => Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(c)).getBytes(), 'binary');
  const der = derOf(cert);
  const others = bags.certs.flatMap((bag) => (bag.cert && bag.cert !== cert ? [derOf(bag.cert)] : []));
  const subject = String(cert.subject.getField('CN')?.value ?? '');
  const privateKeyPem = forge.pki.privateKeyToPem(key);
  return { p12, password, source, subject, fingerprint: createHash('sha256').update(der).digest('hex'), privateKeyPem, certificates: [der, ...others], provenance };
}

function configured(config: Config): SigningIdentity | null {
  const { SIGNING_P12_PATH: path, SIGNING_P12_BASE64: base64, SIGNING_P12_PASSWORD: password = '' } = config;
  if (path && base64) throw new ConfigurationError('SIGNING_P12_PATH and SIGNING_P12_BASE64 are both set: keep one');
  if (base64) return describe(Buffer.from(base64, 'base64'), password, 'SIGNING_P12_BASE64');
  if (!path) return null;
  try {
    return describe(readFileSync(path), password, `SIGNING_P12_PATH=${path}`);
  } catch (error) {
    if (error instanceof ConfigurationError) throw error;
    throw new ConfigurationError(`SIGNING_P12_PATH=${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

const loaded = new Map<string, SigningIdentity>();

/**
 * The configured PKCS#12, else the one generated into DATA_DIR on first use. The password is
 * created first (createOnce: processes starting together agree on it), then each process makes a
 * candidate PKCS#12 under that password and createOnce keeps the first one linked into place, so
 * every process reads the same certificate, complete, and restarts reuse it. Both files are 0600.
 */
export function loadSigningIdentity(config: Config): SigningIdentity {
  const cacheKey = JSON.stringify([config.DATA_DIR, config.SIGNING_P12_PATH, config.SIGNING_P12_BASE64, config.SIGNING_P12_PASSWORD]);
  const known = loaded.get(cacheKey);
  if (known) return known;
  let identity = configured(config);
  if (!identity) {
    const password = loadOrCreateSecret(config.DATA_DIR, GENERATED_PASSWORD, 24);
    const file = join(config.DATA_DIR, GENERATED_P12);
    // createOnce builds its content before it knows whether the file exists: skip the key generation on a restart.
    const base64 = existsSync(file) ? readFileSync(file, 'utf8').trim() : createOnce(file, () => generateP12(password).toString('base64'));
    identity = describe(Buffer.from(base64, 'base64'), password, `${file} (generated because SIGNING_P12_PATH and SIGNING_P12_BASE64 are unset)`, SELF_SIGNED_CERTIFICATE);
  }
  loaded.set(cacheKey, identity);
  return identity;
}
