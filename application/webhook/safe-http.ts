import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent } from 'undici';
import type { AttemptOutcome, FailureKind } from '../../domain/webhook/retry-policy.ts';
import { refusalOf } from './address-policy.ts';

/** The destination resolved to (or is) an address we do not deliver to. */
export class AddressRefused extends Error {
  constructor(
    readonly address: string,
    readonly range: string,
  ) {
    super(`destination address ${address} is in a refused range (${range})`);
    this.name = 'AddressRefused';
  }
}

class AttemptTimeout extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'AttemptTimeout';
  }
}

export interface SafePostOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Tests and local development: deliver to loopback and private networks too. */
  allowPrivateNetworks: boolean;
}

/** Responses are not read, only drained up to this much, so a receiver cannot make us buffer. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const USER_AGENT = 'credit-analysis-webhooks/1.0';

function firstRefused(addresses: readonly string[]): AddressRefused | null {
  for (const address of addresses) {
    const range = refusalOf(address);
    if (range) return new AddressRefused(address, range);
  }
  return null;
}

type Resolved = Array<{ address: string; family: number }>;

/** Resolve every address of a name (an address literal is its own answer) and check them all. */
async function resolveChecked(hostname: string, allowPrivateNetworks: boolean): Promise<Resolved> {
  const family = isIP(hostname);
  const answers: Resolved = family ? [{ address: hostname, family }] : await dns.promises.lookup(hostname, { all: true });
  if (answers.length === 0) throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
  const refused = allowPrivateNetworks ? null : firstRefused(answers.map((a) => a.address));
  if (refused) throw refused;
  return answers;
}

/**
 * The socket's lookup answers only what was resolved and checked for this attempt: nothing is
 * resolved again between the check and the connection (no DNS-rebinding window).
 */
function fixedLookup(addresses: Resolved): LookupFunction {
  return (_hostname, options, callback) => {
    const usable = options.family ? addresses.filter((a) => a.family === options.family) : addresses;
    if (usable.length === 0) return callback(Object.assign(new Error('no checked address of that family'), { code: 'ENOTFOUND' }), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: Resolved) => void)(null, usable);
    callback(null, usable[0]!.address, usable[0]!.family);
  };
}

/**
 * Keep-alive dispatchers, one per (scheme, set of checked addresses). A pooled socket is therefore
 * always connected to an address that this attempt's resolution returned and the check passed:
 * when a name starts resolving elsewhere, it gets another dispatcher and fresh connections.
 *
 * undici rather than node:http: the client's work per POST (request object, header checks,
 * socket bookkeeping) is most of a delivery's CPU, and undici's is about half of node:http's on
 * this kind of machine. It also reads the server's `Keep-Alive: timeout` and stops reusing a
 * socket before the server would close it, the race a reused socket otherwise loses.
 */
const dispatchers = new Map<string, Agent>();
const MAX_DISPATCHERS = 256;
/** Below the usual 5 s server keep-alive, so an idle socket is dropped by us before the server drops it. */
const IDLE_SOCKET_MS = 4000;
/** Sockets per destination: above any dispatcher's concurrency, so a slot never waits for one. */
const CONNECTIONS_PER_ORIGIN = 64;

function dispatcherFor(protocol: string, addresses: Resolved): Agent {
  const key = `${protocol}|${addresses.map((a) => a.address).sort().join(',')}`;
  const found = dispatchers.get(key);
  if (found) {
    dispatchers.delete(key);
    dispatchers.set(key, found);
    return found;
  }
  const dispatcher = new Agent({
    connections: CONNECTIONS_PER_ORIGIN,
    keepAliveTimeout: IDLE_SOCKET_MS,
    keepAliveMaxTimeout: IDLE_SOCKET_MS,
    // The attempt's own deadline bounds connect and answer together (safePost).
    connect: { lookup: fixedLookup(addresses), timeout: 0 },
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  dispatchers.set(key, dispatcher);
  if (dispatchers.size > MAX_DISPATCHERS) {
    const [oldest, old] = dispatchers.entries().next().value!;
    dispatchers.delete(oldest);
    void old.close();
  }
  return dispatcher;
}

function failed(failure: FailureKind, error: string, started: number, statusCode: number | null = null): AttemptOutcome {
  return { ok: false, statusCode, failure, error, durationMs: Date.now() - started };
}

/** undici's own timeouts are off (the deadline rules), but one that still fires is a timeout too. */
const UNDICI_TIMEOUTS = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function classify(error: unknown, started: number): AttemptOutcome {
  if (error instanceof AddressRefused) return { ...failed('refused', error.message, started), refusedRange: error.range };
  const e = error as NodeJS.ErrnoException;
  if (error instanceof AttemptTimeout || UNDICI_TIMEOUTS.has(e.code ?? '')) return failed('timeout', e.message, started);
  const outcome = failed('network', [e.code, e.message].filter(Boolean).join(': ') || 'network error', started);
  return e.code ? { ...outcome, errorCode: e.code } : outcome;
}

function answered(status: number, location: string | string[] | undefined, started: number): AttemptOutcome {
  if (status >= 200 && status < 300) return { ok: true, statusCode: status, failure: null, error: null, durationMs: Date.now() - started };
  if (status >= 300 && status < 400) return failed('redirect', `redirect not followed (Location: ${location ?? '-'})`, started, status);
  return failed('http', `HTTP ${status}`, started, status);
}

/** Rejects with the signal's reason once it is aborted. */
function whenAborted(signal: AbortSignal): Promise<never> {
  const aborted = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
  aborted.catch(() => undefined);
  return aborted;
}

/**
 * POST once to a subscriber: resolve and check on every call, connect only to checked addresses,
 * never follow a redirect, give up after `timeoutMs` (DNS, connect and headers together), and
 * never read more than a little of the answer. Resolves with the outcome; never rejects.
 */
export async function safePost(options: SafePostOptions): Promise<AttemptOutcome> {
  const started = Date.now();
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    return failed('network', 'invalid url', started);
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new AttemptTimeout(options.timeoutMs)), options.timeoutMs);
  try {
    const addresses = await Promise.race([resolveChecked(hostname, options.allowPrivateNetworks), whenAborted(deadline.signal)]);
    const response = await dispatcherFor(url.protocol, addresses).request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...options.headers },
      body: options.body,
      signal: deadline.signal,
    });
    // The answer is not read, only drained up to a little (a receiver cannot make us buffer),
    // and the deadline still bounds the draining: the timer stays until it ends.
    void response.body
      .dump({ limit: MAX_RESPONSE_BYTES })
      .catch(() => undefined)
      .finally(() => clearTimeout(timer));
    return answered(response.statusCode, response.headers.location, started);
  } catch (error) {
    clearTimeout(timer);
    return classify(deadline.signal.aborted ? deadline.signal.reason : error, started);
  }
}
