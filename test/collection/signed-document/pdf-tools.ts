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
