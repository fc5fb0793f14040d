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
