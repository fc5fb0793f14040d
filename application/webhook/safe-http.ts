import dns from 'node:dns';
import { EventEmitter } from 'node:events';
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

/** Every address must pass the address policy, unless private networks are allowed. */
function checked(answers: Resolved, allowPrivateNetworks: boolean): Resolved {
  const refused = allowPrivateNetworks ? null : firstRefused(answers.map((a) => a.address));
  if (refused) throw refused;
  return answers;
}

/** Resolve every address of a name and check them all. */
async function resolveChecked(hostname: string, allowPrivateNetworks: boolean): Promise<Resolved> {
  const answers = await dns.promises.lookup(hostname, { all: true });
  if (answers.length === 0) throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
  return checked(answers, allowPrivateNetworks);
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
  const key = `${protocol}|${addresses
    .map((a) => a.address)
    .sort()
    .join(',')}`;
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

function classify(error: unknown, started: number): AttemptOutcome {
  if (error instanceof AddressRefused) return { ...failed('refused', error.message, started), refusedRange: error.range };
  if (error instanceof AttemptTimeout) return failed('timeout', error.message, started);
  const e = error as NodeJS.ErrnoException;
  const outcome = failed('network', [e.code, e.message].filter(Boolean).join(': ') || 'network error', started);
  return e.code ? { ...outcome, errorCode: e.code } : outcome;
}

function answered(status: number, location: string | string[] | undefined, started: number): AttemptOutcome {
  if (status >= 200 && status < 300) return { ok: true, statusCode: status, failure: null, error: null, durationMs: Date.now() - started };
  if (status >= 300 && status < 400) return failed('redirect', `redirect not followed (Location: ${location ?? '-'})`, started, status);
  return failed('http', `HTTP ${status}`, started, status);
}

/**
 * One attempt's deadline, in the form of abort signal undici also accepts: an EventEmitter with
 * `aborted` and `reason`. Not an AbortController: its EventTarget machinery was about 5% of the
 * send lane's CPU, one per attempt.
 */
class Deadline extends EventEmitter {
  aborted = false;
  reason: AttemptTimeout | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    super();
    this.timer = setTimeout(() => {
      this.aborted = true;
      this.reason = new AttemptTimeout(ms);
      this.emit('abort');
    }, ms);
  }

  clear(): void {
    clearTimeout(this.timer);
  }

  /** Rejects with the timeout once the deadline passes. */
  passing(): Promise<never> {
    const passed = new Promise<never>((_, reject) => this.once('abort', () => reject(this.reason)));
    passed.catch(() => undefined);
    return passed;
  }
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
  const deadline = new Deadline(options.timeoutMs);
  try {
    // An address literal is its own answer: checked at once, no lookup to race the deadline.
    const family = isIP(hostname);
    const addresses = family
      ? checked([{ address: hostname, family }], options.allowPrivateNetworks)
      : await Promise.race([resolveChecked(hostname, options.allowPrivateNetworks), deadline.passing()]);
    const response = await dispatcherFor(url.protocol, addresses).request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...options.headers },
      body: options.body,
      signal: deadline,
    });
    // The answer is not read, only drained up to a little (a receiver cannot make us buffer),
    // and the deadline still bounds the draining: it stays until the draining ends.
    void response.body
      .dump({ limit: MAX_RESPONSE_BYTES })
      .catch(() => undefined)
      .finally(() => deadline.clear());
    return answered(response.statusCode, response.headers.location, started);
  } catch (error) {
    deadline.clear();
    return classify(deadline.aborted ? deadline.reason : error, started);
  }
}
