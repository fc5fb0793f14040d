import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The source could not be read within its limits: the loaded version of the list stays. */
export class ListSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListSourceError';
  }
}

export interface ReadLimits {
  maxBytes: number;
  timeoutMs: number;
}

/** A list file as it is read: the chunks once, then its size and SHA-256. */
export interface ListFile {
  chunks: AsyncIterable<Buffer>;
  /** After `chunks` is consumed: the hex SHA-256 and size of every byte read. */
  digest(): { sha256: string; bytes: number };
}

const isAddress = (source: string) => /^https?:\/\//i.test(source);

/** The bytes of a file path, `file:` URL or http(s) address, streamed. */
async function* rawChunks(source: string, signal: AbortSignal, maxBytes: number): AsyncGenerator<Buffer> {
  if (!isAddress(source)) {
    const path = source.startsWith('file:') ? fileURLToPath(source) : source;
    for await (const chunk of createReadStream(path, { signal })) yield chunk as Buffer;
    return;
  }
  const response = await fetch(source, { signal, redirect: 'follow', headers: { accept: '*/*' } });
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new ListSourceError(`${source} respondeu ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body.cancel();
    throw new ListSourceError(`${source} tem ${declared} bytes, acima de SCREENING_MAX_BYTES (${maxBytes})`);
  }
  // Leaving this loop early (the size limit, a parse error) cancels the body.
  for await (const chunk of response.body) yield Buffer.from(chunk);
}

/**
 * Open a list source: a file path (or `file:` URL) or an http(s) address. Bytes are hashed as
 * they pass and counted against `maxBytes` (a body without Content-Length, or one that lies, is
 * cut at the limit too); the whole read is bounded by `timeoutMs`.
 */
export function readListSource(source: string, limits: ReadLimits): ListFile {
  const hash = createHash('sha256');
  let bytes = 0;
  async function* chunks(): AsyncGenerator<Buffer> {
    const signal = AbortSignal.timeout(limits.timeoutMs);
    try {
      for await (const chunk of rawChunks(source, signal, limits.maxBytes)) {
        bytes += chunk.length;
        if (bytes > limits.maxBytes) throw new ListSourceError(`${source} passa de SCREENING_MAX_BYTES (${limits.maxBytes} bytes)`);
        hash.update(chunk);
        yield chunk;
      }
    } catch (error) {
      if (signal.aborted) throw new ListSourceError(`${source} não foi lido em SCREENING_FETCH_TIMEOUT_MS (${limits.timeoutMs} ms)`);
      throw error;
    }
  }
  return { chunks: chunks(), digest: () => ({ sha256: hash.digest('hex'), bytes }) };
}
