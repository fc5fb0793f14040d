import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, rgb } from 'pdf-lib';

/**
 * Scanned documents for the OCR tests, made the way a scanner makes them: a PDF's pages rendered
 * to images (poppler's pdftoppm), then a PDF of those images alone, with no text layer.
 */
const run = promisify(execFile);

/** Each page of `pdf` as a PNG at `dpi`. */
export async function pagesAsPng(pdf: Buffer, dpi = 150): Promise<Buffer[]> {
  const dir = await mkdtemp(join(tmpdir(), 'scan-'));
  try {
    await writeFile(join(dir, 'in.pdf'), pdf);
    await run('pdftoppm', ['-r', String(dpi), '-gray', '-png', join(dir, 'in.pdf'), join(dir, 'page')]);
    const names = (await readdir(dir)).filter((name) => name.startsWith('page-')).sort();
    return Promise.all(names.map((name) => readFile(join(dir, name))));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** An image-only PDF of `pdf`'s pages: what a scanner gives, nothing for pdf-parse to read. */
export async function scanned(pdf: Buffer, dpi = 150): Promise<Buffer> {
  const out = await PDFDocument.create();
  for (const png of await pagesAsPng(pdf, dpi)) {
    const image = await out.embedPng(png);
    const { width, height } = image.scale(72 / dpi);
    out.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height });
  }
  return Buffer.from(await out.save());
}

/** A PDF with a drawing and no text at all, as a scan looks to pdf-parse (needs no tool to make). */
export async function textlessPdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  pdf.addPage([595, 842]).drawRectangle({ x: 40, y: 600, width: 500, height: 200, color: rgb(0.2, 0.2, 0.2) });
  return Buffer.from(await pdf.save());
}
