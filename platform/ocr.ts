import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * Optical character recognition with the Tesseract binary (Debian's `tesseract-ocr` and
 * `tesseract-ocr-por`), PDFs rasterized first by poppler's `pdftoppm`. Both run as child processes
 * given argument arrays (no shell), each bounded: killed past the document's time budget, their
 * address space capped with util-linux's `prlimit` when present, Tesseract on one thread
 * (OMP_THREAD_LIMIT=1), at most `maxPages` pages at `dpi`, inputs above `maxBytes` refused. A
 * document that breaks a bound is `failed`, never a hang or the service's memory.
 */
export interface OcrSettings {
  /** The binaries, names looked up on PATH or absolute paths. */
  tesseract: string;
  pdftoppm: string;
  /** Tesseract's language (`por`: traineddata from tesseract-ocr-por). */
  language: string;
  dpi: number;
  maxPages: number;
  /** The whole document's budget: rasterizing and every page. */
  timeoutMs: number;
  /** Address-space cap of each child process. */
  memoryMb: number;
  maxBytes: number;
  /** Documents recognised at once by this process (each is CPU-bound on one core). */
  concurrency: number;
}

export type OcrResult =
  /** `confidence`: Tesseract's mean word confidence, 0 to 1; `pages`: pages read (at most maxPages). */
  | { kind: 'text'; text: string; confidence: number; pages: number }
  /** The machine cannot recognise text at all (binary or language missing): a person must read it. */
  | { kind: 'unavailable'; reason: string }
  /** This document could not be recognised within the bounds (time, memory, size, damaged image). */
  | { kind: 'failed'; reason: string };

export const OcrMessages = {
  tesseractMissing: 'O OCR não está disponível neste servidor (Tesseract não instalado): documento digitalizado enviado para análise manual.',
  languageMissing: (language: string) => `O OCR não está disponível neste servidor (idioma ${language} do Tesseract não instalado): documento digitalizado enviado para análise manual.`,
  pdftoppmMissing: 'O OCR de PDFs não está disponível neste servidor (pdftoppm do poppler não instalado): documento digitalizado enviado para análise manual.',
  tooLarge: (maxBytes: number) => `O documento digitalizado passa de ${Math.round(maxBytes / 1048576)} MB, o limite do OCR: é preciso análise manual.`,
  timeout: 'O OCR do documento digitalizado não terminou no tempo limite: é preciso análise manual.',
  failed: 'O OCR não conseguiu ler o documento digitalizado (imagem danificada ou grande demais): é preciso análise manual.',
} as const;

/** An absolute path of `command` (as given, or found on PATH), or null when it is not installed. */
export function locate(command: string): string | null {
  const executable = (path: string) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (isAbsolute(command)) return executable(command) ? command : null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, command))) return join(dir, command);
  }
  return null;
}

interface Run {
  code: number | null;
  /** Killed at the deadline. */
  timedOut: boolean;
  stderr: string;
}

/** One bounded child process: no shell, no stdin, killed (SIGKILL) at `deadline`, stderr kept (first 4 KB). */
function run(file: string, args: string[], deadline: number, memoryMb: number): Promise<Run> {
  const prlimit = locate('prlimit');
  // prlimit sets RLIMIT_AS and then execs the program: the cap holds from its first instruction.
  const [command, argv] = prlimit ? [prlimit, [`--as=${memoryMb * 1048576}`, '--', file, ...args]] : [file, args];
  return new Promise((resolve) => {
    const child = spawn(command, argv, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '', OMP_THREAD_LIMIT: '1', ...(process.env.TESSDATA_PREFIX ? { TESSDATA_PREFIX: process.env.TESSDATA_PREFIX } : {}) },
    });
    let stderr = '';
    let timedOut = false;
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(
      () => {
        timedOut = true;
        child.kill('SIGKILL');
      },
      Math.max(0, deadline - Date.now()),
    );
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, timedOut, stderr: error.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, stderr });
    });
  });
}

/** Tesseract's TSV: word rows (level 5) with their confidence; rows of a line keep their order. */
function wordConfidences(tsv: string): number[] {
  return tsv
    .split('\n')
    .slice(1)
    .map((row) => row.split('\t'))
    .filter((cells) => cells[0] === '5' && (cells[11] ?? '').trim() !== '')
    .map((cells) => Number(cells[10]))
    .filter((conf) => Number.isFinite(conf) && conf >= 0);
}

/** Waiting documents beyond `concurrency` (one slot list per process). */
let running = 0;
const waiting: Array<() => void> = [];

async function slot<T>(concurrency: number, work: () => Promise<T>): Promise<T> {
  if (running >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/**
 * The text of a scanned PDF or an image (PNG, JPEG) by Tesseract. Pages are read in order with
 * page segmentation mode 4 (one column of rows of varying size), which keeps a statement's label
 * and its amounts on one line, as the financial rules expect.
 */
export function recognise(bytes: Uint8Array, mimeType: string, settings: OcrSettings): Promise<OcrResult> {
  const tesseract = locate(settings.tesseract);
  if (!tesseract) return Promise.resolve({ kind: 'unavailable', reason: OcrMessages.tesseractMissing });
  const pdftoppm = mimeType === 'application/pdf' ? locate(settings.pdftoppm) : null;
  if (mimeType === 'application/pdf' && !pdftoppm) return Promise.resolve({ kind: 'unavailable', reason: OcrMessages.pdftoppmMissing });
  if (bytes.length > settings.maxBytes) return Promise.resolve({ kind: 'failed', reason: OcrMessages.tooLarge(settings.maxBytes) });
  return slot(settings.concurrency, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ocr-'));
    try {
      const deadline = Date.now() + settings.timeoutMs;
      const input = join(dir, mimeType === 'application/pdf' ? 'input.pdf' : mimeType === 'image/png' ? 'input.png' : 'input.jpg');
      await writeFile(input, bytes);
      let images = [input];
      if (pdftoppm) {
        const raster = await run(pdftoppm, ['-r', String(settings.dpi), '-l', String(settings.maxPages), '-gray', '-png', input, join(dir, 'page')], deadline, settings.memoryMb);
        if (raster.timedOut) return { kind: 'failed', reason: OcrMessages.timeout };
        if (raster.code !== 0) return { kind: 'failed', reason: OcrMessages.failed };
        // page-1.png ... page-10.png: zero-padded to the page count's width, so names sort in page order.
        images = (await readdir(dir))
          .filter((name) => /^page-\d+\.png$/.test(name))
          .sort()
          .map((name) => join(dir, name));
      }
      const texts: string[] = [];
      const confidences: number[] = [];
      for (const [i, image] of images.entries()) {
        const out = join(dir, `ocr-${i}`);
        const read = await run(tesseract, [image, out, '-l', settings.language, '--psm', '4', 'txt', 'tsv'], deadline, settings.memoryMb);
        if (read.timedOut) return { kind: 'failed', reason: OcrMessages.timeout };
        if (read.code !== 0) {
          if (/Failed loading language|Error opening data file/i.test(read.stderr)) return { kind: 'unavailable', reason: OcrMessages.languageMissing(settings.language) };
          return { kind: 'failed', reason: OcrMessages.failed };
        }
        texts.push(await readFile(`${out}.txt`, 'utf8'));
        confidences.push(...wordConfidences(await readFile(`${out}.tsv`, 'utf8')));
      }
      const confidence = confidences.length ? confidences.reduce((a, b) => a + b, 0) / confidences.length / 100 : 0;
      return { kind: 'text', text: texts.join('\n'), confidence: Math.round(confidence * 1000) / 1000, pages: images.length };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}
