import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const run = promisify(execFile);

/** A contract of `pages` pages made in the test, each page saying which it is. */
export async function contractPdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage([595.28, 841.89]);
    page.drawText(`Contrato de abertura de crédito - página ${n} de ${pages}`, { x: 50, y: 780, size: 14, font });
    for (let line = 0; line < 40; line++) page.drawText(`Cláusula ${n}.${line + 1}: as partes acordam o que segue, conforme a proposta aceita.`, { x: 50, y: 740 - line * 16, size: 9, font });
  }
  return Buffer.from(await doc.save());
}

/** Runs a poppler tool (independent of the signer) on `bytes` in a folder of its own. */
async function withFile<T>(bytes: Uint8Array, use: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'signed-copy-'));
  try {
    const file = join(dir, 'copy.pdf');
    writeFileSync(file, bytes);
    return await use(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** pdfsig's report; it exits non-zero for a bad signature, whose report is still what the test reads. */
export function pdfsig(bytes: Uint8Array): Promise<string> {
  return withFile(bytes, async (file) => {
    try {
      return (await run('pdfsig', [file])).stdout;
    } catch (error) {
      return (error as { stdout?: string }).stdout ?? String(error);
    }
  });
}

/** The embedded file `name`, as pdfdetach extracts it. */
export function detached(bytes: Uint8Array, name: string): Promise<string> {
  return withFile(bytes, async (file, dir) => {
    await run('pdfdetach', ['-saveall', '-o', dir, file]);
    return readFileSync(join(dir, name), 'utf8');
  });
}

/** The text of page `page` (1-based), as pdftotext reads it. */
export function pageText(bytes: Uint8Array, page: number): Promise<string> {
  return withFile(bytes, async (file) => (await run('pdftotext', ['-f', String(page), '-l', String(page), '-layout', file, '-'])).stdout);
}

export async function pageCount(bytes: Uint8Array): Promise<number> {
  return (await PDFDocument.load(bytes, { updateMetadata: false })).getPageCount();
}

/**
 * The signature's CMS checked by OpenSSL (independent of the signer): `openssl cms -verify` over
 * the signed byte ranges (certificate trust not checked: self-signed; OpenSSL 3 also checks an ESS
 * signing-certificate(-v2) attribute against the signer's certificate), and the CMS printed.
 */
export function opensslCms(bytes: Buffer): Promise<{ verified: string; printed: string; der: Buffer }> {
  const range = /\/ByteRange \[\s*(\d+) (\d+) (\d+) (\d+)\s*\]/.exec(bytes.toString('latin1'));
  if (!range) throw new Error('no /ByteRange');
  const [start, length, next, rest] = range.slice(1).map(Number) as [number, number, number, number];
  const hex = bytes.subarray(start + length + 1, next - 1).toString('latin1');
  const cms = Buffer.from(hex, 'hex');
  return withFile(Buffer.concat([bytes.subarray(start, start + length), bytes.subarray(next, next + rest)]), async (content, dir) => {
    // The placeholder's zero padding after the DER is ignored by OpenSSL's DER reader only when cut: keep the DER's own length.
    const der = cms.subarray(0, 2 + (cms[1]! & 0x80 ? (cms[1]! & 0x7f) + cms.subarray(2, 2 + (cms[1]! & 0x7f)).reduce((n, b) => n * 256 + b, 0) : cms[1]!));
    const signature = join(dir, 'signature.der');
    writeFileSync(signature, der);
    const verified = await run('openssl', ['cms', '-verify', '-binary', '-inform', 'DER', '-in', signature, '-content', content, '-noverify', '-out', join(dir, 'out')]);
    const printed = await run('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', signature]);
    return { verified: verified.stderr, printed: printed.stdout, der };
  });
}

/** Runs openssl with `files` written into a folder of its own first (names relative to it). */
async function opensslWith(files: Record<string, Uint8Array>, args: (dir: string) => string[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'openssl-'));
  try {
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
    return (await run('openssl', args(dir), { maxBuffer: 16 * 1024 * 1024 })).stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `openssl ts -verify` of a timestamp token over `data` against the CA file `caPath`; rejects when it does not hold. */
export function opensslTimestampVerify(token: Uint8Array, data: Uint8Array, caPath: string): Promise<string> {
  return opensslWith({ 'token.der': token, 'data.bin': data }, (dir) => ['ts', '-verify', '-token_in', '-in', join(dir, 'token.der'), '-data', join(dir, 'data.bin'), '-CAfile', caPath]);
}

/** What `openssl ts -reply -text` reads in a timestamp token: its time (`Time stamp:`) and imprint (hex). */
export async function opensslTimestampText(token: Uint8Array): Promise<{ time: Date; imprintHex: string; text: string }> {
  const text = await opensslWith({ 'token.der': token }, (dir) => ['ts', '-reply', '-token_in', '-in', join(dir, 'token.der'), '-token_out', '-text']);
  const time = /^Time stamp: (.+)$/m.exec(text)?.[1];
  const imprint = /^Message data:\n((?: {4}[0-9a-f]{4} - .*\n)+)/m.exec(text)?.[1];
  if (!time || !imprint) throw new Error(`not a timestamp token: ${text}`);
  // Each dump line: "    0000 - 2a 35 da ...-28 b7 ...   *5.S..."; the hex is between the offset and the ASCII column.
  const imprintHex = imprint
    .split('\n')
    .map((line) => line.slice(11, 58).replace(/[^0-9a-f]/g, ''))
    .join('');
  return { time: new Date(time), imprintHex, text };
}

/**
 * The signature timestamp token (unsigned attribute id-smime-aa-timeStampToken) and the signature
 * value of a CMS's one SignerInfo, located with `openssl asn1parse` alone: independent of the
 * pkijs code that built them.
 */
export async function opensslSignatureTimestamp(cms: Buffer): Promise<{ token: Buffer | null; signatureValue: Buffer }> {
  const lines = (await opensslWith({ 'cms.der': cms }, (dir) => ['asn1parse', '-inform', 'DER', '-in', join(dir, 'cms.der')])).split('\n');
  const parsed = lines.map((line) => {
    const m = /^\s*(\d+):d=(\d+)\s+hl=(\d+)\s+l=\s*(\d+)\s+(?:cons|prim): (.*)$/.exec(line);
    return m && { offset: Number(m[1]), depth: Number(m[2]), header: Number(m[3]), length: Number(m[4]), what: m[5]! };
  });
  // SignedData's SignerInfo fields sit at depth 5: ..., signature OCTET STRING, [1] unsignedAttrs.
  const unsigned = parsed.findIndex((p) => p?.depth === 5 && p.what.startsWith('cont [ 1 ]'));
  const value = parsed
    .slice(0, unsigned === -1 ? undefined : unsigned)
    .reverse()
    .find((p) => p?.depth === 5 && p.what.startsWith('OCTET STRING'));
  if (!value) throw new Error('no signature value in the CMS');
  const signatureValue = Buffer.from(/\[HEX DUMP\]:([0-9A-F]+)/.exec(value.what)![1]!, 'hex');
  const attribute = parsed.findIndex((p) => p?.what.includes(':id-smime-aa-timeStampToken'));
  // The attribute's OID, then its SET, then the token (a ContentInfo SEQUENCE).
  const token = attribute === -1 ? null : parsed[attribute + 2]!;
  return { token: token && cms.subarray(token.offset, token.offset + token.header + token.length), signatureValue };
}

/** The streams the PDF's DSS names (`/Certs`, `/OCSPs`, `/CRLs`), read from the file's text: the DSS is written uncompressed. */
export function dssStreams(pdf: Buffer): { certs: Buffer[]; ocsps: Buffer[]; crls: Buffer[] } {
  const text = pdf.toString('latin1');
  const dss = /\/Type \/DSS([^>]*)>>/.exec(text)?.[1] ?? '';
  const streamsOf = (key: string) =>
    // "12 0 R 13 0 R": every third word is an object number.
    (new RegExp(`/${key} \\[([^\\]]*)\\]`).exec(dss)?.[1] ?? '')
      .trim()
      .split(/\s+/)
      .filter((word, i) => i % 3 === 0 && word !== '')
      .map((number) => {
        const opening = `\n${number} 0 obj\n<< /Length `;
        const at = text.lastIndexOf(opening);
        if (at === -1) throw new Error(`DSS stream ${number} not found`);
        const length = Number.parseInt(text.slice(at + opening.length, at + opening.length + 12), 10);
        const start = text.indexOf('stream\n', at) + 'stream\n'.length;
        return pdf.subarray(start, start + length);
      });
  return { certs: streamsOf('Certs'), ocsps: streamsOf('OCSPs'), crls: streamsOf('CRLs') };
}

/** `openssl ocsp -resp_text` of a DER OCSP response (its signature not checked here: the statuses are read). */
export function opensslOcspText(response: Uint8Array): Promise<string> {
  return opensslWith({ 'r.der': response }, (dir) => ['ocsp', '-respin', join(dir, 'r.der'), '-resp_text', '-noverify']);
}

/** The subject of a DER certificate, as `openssl x509` prints it. */
export function opensslSubject(certificate: Uint8Array): Promise<string> {
  return opensslWith({ 'c.der': certificate }, (dir) => ['x509', '-inform', 'DER', '-in', join(dir, 'c.der'), '-noout', '-subject']);
}
