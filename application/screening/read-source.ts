import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Unzip, UnzipInflate } from 'fflate';
import { ListFormatError } from './parsers.ts';

/** The source could not be read within its limits: the loaded version of the list stays. */
export class ListSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListSourceError';
  }
}

export interface ReadLimits {
  maxBytes: number;
  /** Largest uncompressed total of a ZIP's entries (a zip bomb is cut here). */
  maxUnzippedBytes: number;
  timeoutMs: number;
}

/** A list file as it is read: the chunks once (a ZIP's CSV entry, unzipped), then its size and SHA-256. */
export interface ListFile {
  chunks: AsyncIterable<Buffer>;
  /**
   * After `chunks` is consumed: the hex SHA-256 and size of every byte read (of the ZIP as
   * downloaded, when the source is one) and the name of the ZIP entry read, if any.
   */
  digest(): { sha256: string; bytes: number; entryName: string | null };
}

const isAddress = (source: string) => /^https?:\/\//i.test(source);

/**
 * How a source is shown outside the process (failure messages, the lists route): an address
 * without its userinfo, query and fragment (they may carry credentials or a token), a file by
 * its name only (its directory says nothing a caller needs).
 */
export function describeSource(source: string): { kind: 'FILE' | 'ADDRESS'; location: string } {
  if (!isAddress(source)) return { kind: 'FILE', location: basename(source.startsWith('file:') ? fileURLToPath(source) : source) };
  try {
    const url = new URL(source);
    return { kind: 'ADDRESS', location: `${url.protocol}//${url.host}${url.pathname}` };
  } catch {
    return { kind: 'ADDRESS', location: 'endereço inválido' };
  }
}

/** The bytes of a file path, `file:` URL or http(s) address, streamed. */
async function* rawChunks(source: string, label: string, signal: AbortSignal, maxBytes: number): AsyncGenerator<Buffer> {
  if (!isAddress(source)) {
    const path = source.startsWith('file:') ? fileURLToPath(source) : source;
    for await (const chunk of createReadStream(path, { signal })) yield chunk as Buffer;
    return;
  }
  const response = await fetch(source, { signal, redirect: 'follow', headers: { accept: '*/*' } });
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new ListSourceError(`${label} respondeu ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body.cancel();
    throw new ListSourceError(`${label} tem ${declared} bytes, acima de SCREENING_MAX_BYTES (${maxBytes})`);
  }
  // Leaving this loop early (the size limit, a parse error) cancels the body.
  for await (const chunk of response.body) yield Buffer.from(chunk);
}

/**
 * Open a list source: a file path (or `file:` URL) or an http(s) address. Bytes are hashed as
 * they pass and counted against `maxBytes` (a body without Content-Length, or one that lies, is
 * cut at the limit too); the whole read is bounded by `timeoutMs`. Bytes starting with the ZIP
 * signature (the Portal da Transparência's downloads) are unzipped as they pass (see `unzipped`).
 */
export function readListSource(source: string, limits: ReadLimits): ListFile {
  const hash = createHash('sha256');
  const label = describeSource(source).location;
  let bytes = 0;
  const entry = { name: null as string | null };
  async function* raw(signal: AbortSignal): AsyncGenerator<Buffer> {
    for await (const chunk of rawChunks(source, label, signal, limits.maxBytes)) {
      bytes += chunk.length;
      if (bytes > limits.maxBytes) throw new ListSourceError(`${label} passa de SCREENING_MAX_BYTES (${limits.maxBytes} bytes)`);
      hash.update(chunk);
      yield chunk;
    }
  }
  async function* chunks(): AsyncGenerator<Buffer> {
    const signal = AbortSignal.timeout(limits.timeoutMs);
    try {
      yield* unzippedIfZip(raw(signal), label, limits.maxUnzippedBytes, entry);
    } catch (error) {
      if (signal.aborted) throw new ListSourceError(`${label} não foi lido em SCREENING_FETCH_TIMEOUT_MS (${limits.timeoutMs} ms)`);
      throw error;
    }
  }
  return { chunks: chunks(), digest: () => ({ sha256: hash.digest('hex'), bytes, entryName: entry.name }) };
}

/** A local file header's signature, `PK\x03\x04`: every ZIP starts with one. */
const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** The bytes as they are, or, when they start with the ZIP signature, its CSV entry unzipped. */
async function* unzippedIfZip(bytes: AsyncIterable<Buffer>, label: string, maxUnzipped: number, entry: { name: string | null }): AsyncGenerator<Buffer> {
  const iterator = bytes[Symbol.asyncIterator]();
  // Enough bytes to tell: a network chunk may be shorter than the signature.
  let head = Buffer.alloc(0);
  let ended = false;
  while (head.length < ZIP_SIGNATURE.length && !ended) {
    const next = await iterator.next();
    if (next.done) ended = true;
    else head = Buffer.concat([head, next.value]);
  }
  const rest: AsyncIterable<Buffer> = { [Symbol.asyncIterator]: () => iterator };
  async function* all(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    if (!ended) yield* rest;
  }
  if (head.subarray(0, ZIP_SIGNATURE.length).equals(ZIP_SIGNATURE)) yield* unzipped(all(), label, maxUnzipped, entry);
  else yield* all();
}

/** Compressed bytes handed to the inflater at a time: deflate expands ~1,000:1 at most, so one push makes a few MiB at most before the limit is checked. */
const PUSH_BYTES = 4096;

/**
 * The one `.csv` entry of a ZIP, inflated as the archive streams in (fflate's `Unzip`), so memory
 * holds a chunk, never the archive or the CSV. Every entry (skipped ones too) counts against
 * `maxUnzipped`, by its declared size before any byte is inflated and by what actually comes out,
 * so a zip bomb is refused within a few MiB of the limit. An archive with no CSV or with several
 * is refused: which file is the list would be a guess. The archive is read to its end (its
 * SHA-256 is the one recorded, and a second CSV may come after the first).
 */
async function* unzipped(bytes: AsyncIterable<Buffer>, label: string, maxUnzipped: number, entry: { name: string | null }): AsyncGenerator<Buffer> {
  let total = 0;
  let out: Buffer[] = [];
  let failure: Error | null = null;
  const fail = (message: string) => {
    failure ??= new ListFormatError(`ZIP ${label}: ${message}`);
  };
  const unzip = new Unzip((file) => {
    const csv = /\.csv$/i.test(file.name);
    if (csv && entry.name !== null) return fail(`tem mais de um CSV (${entry.name}, ${file.name}); esperado exatamente um`);
    if (csv) entry.name = file.name;
    if (file.originalSize !== undefined && total + file.originalSize > maxUnzipped) {
      return fail(`${file.name} declara ${file.originalSize} bytes descompactados, acima de SCREENING_MAX_UNZIPPED_BYTES (${maxUnzipped})`);
    }
    file.ondata = (error, data, _final) => {
      if (error) return fail(`${file.name} não pôde ser descompactado: ${error.message}`);
      total += data.length;
      if (total > maxUnzipped) return fail(`passa de SCREENING_MAX_UNZIPPED_BYTES (${maxUnzipped} bytes) descompactados`);
      if (csv && data.length > 0) out.push(Buffer.from(data.buffer, data.byteOffset, data.length));
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  const push = (chunk: Uint8Array, final: boolean) => {
    try {
      unzip.push(chunk, final);
    } catch (error) {
      fail(`arquivo inválido: ${(error as Error).message}`);
    }
  };
  for await (const chunk of bytes) {
    for (let at = 0; at < chunk.length && !failure; at += PUSH_BYTES) {
      push(chunk.subarray(at, at + PUSH_BYTES), false);
      if (failure) throw failure;
      if (out.length > 0) {
        const ready = out;
        out = [];
        yield* ready;
      }
    }
  }
  push(new Uint8Array(0), true);
  if (failure) throw failure;
  yield* out;
  if (entry.name === null) throw new ListFormatError(`ZIP ${label}: nenhum arquivo .csv dentro; esperado exatamente um`);
}
