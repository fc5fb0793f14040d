import { Agent, request } from 'undici';

/** Answers larger than this are refused: a TSA token, an OCSP response or a CRL of a sane CA fits well within it. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface BinaryExchange {
  url: string;
  method: 'GET' | 'POST';
  body?: Uint8Array;
  headers?: Record<string, string>;
  /** The whole exchange: connection, answer and body. */
  timeoutMs: number;
  /** undici dispatcher carrying TLS options (client certificate, trust anchors); the global one when absent. */
  dispatcher?: Agent;
}

export class HttpExchangeError extends Error {
  constructor(
    message: string,
    /** The HTTP status, when an answer came; null for a network error or a timeout. */
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'HttpExchangeError';
  }

  /** Worth another try: no answer, a timeout, 429 or a 5xx. */
  get transient(): boolean {
    return this.status === null || this.status === 429 || this.status >= 500;
  }
}

/**
 * One binary HTTP exchange with a hard deadline and a bounded body, for the PKI services a
 * signature needs (TSA, OCSP responders, CRL distribution points): a slow or endless answer
 * becomes an HttpExchangeError, never a hung signing. Redirects are not followed (undici's request
 * does not), so an answer always comes from the configured or certified address.
 */
export async function exchangeBytes(exchange: BinaryExchange): Promise<Buffer> {
  const signal = AbortSignal.timeout(exchange.timeoutMs);
  let answer;
  try {
    answer = await request(exchange.url, {
      method: exchange.method,
      body: exchange.body ? Buffer.from(exchange.body) : undefined,
      headers: exchange.headers,
      signal,
      dispatcher: exchange.dispatcher,
    });
  } catch (error) {
    throw new HttpExchangeError(`${exchange.method} ${exchange.url}: ${signal.aborted ? `no answer within ${exchange.timeoutMs} ms` : (error as Error).message}`, null);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of answer.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_ANSWER_BYTES) {
        answer.body.destroy();
        throw new HttpExchangeError(`${exchange.method} ${exchange.url}: answer larger than ${MAX_ANSWER_BYTES} bytes`, answer.statusCode);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof HttpExchangeError) throw error;
    throw new HttpExchangeError(`${exchange.method} ${exchange.url}: ${signal.aborted ? `no complete answer within ${exchange.timeoutMs} ms` : (error as Error).message}`, null);
  }
  if (answer.statusCode !== 200) throw new HttpExchangeError(`${exchange.method} ${exchange.url}: HTTP ${answer.statusCode}`, answer.statusCode);
  return Buffer.concat(chunks);
}
