import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
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
 * Keep-alive agents, one per (scheme, set of checked addresses). A pooled socket is therefore
 * always connected to an address that this attempt's resolution returned and the check passed:
 * when a name starts resolving elsewhere, it gets another agent and fresh connections.
 */
const agents = new Map<string, http.Agent>();
const MAX_AGENTS = 256;
/** Below the usual 5 s server keep-alive, so an idle socket is dropped by us before the server drops it. */
const IDLE_SOCKET_MS = 4000;

function agentFor(protocol: string, addresses: Resolved): http.Agent {
  const key = `${protocol}|${addresses.map((a) => a.address).sort().join(',')}`;
  const found = agents.get(key);
  if (found) {
    agents.delete(key);
    agents.set(key, found);
    return found;
  }
  const options = { keepAlive: true, maxSockets: 64, maxFreeSockets: 64, timeout: IDLE_SOCKET_MS, lookup: fixedLookup(addresses) };
  const agent = protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  agents.set(key, agent);
  if (agents.size > MAX_AGENTS) {
    const [oldest, old] = agents.entries().next().value!;
    agents.delete(oldest);
    old.destroy();
  }
  return agent;
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
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AttemptTimeout(options.timeoutMs)), options.timeoutMs);
  });
  deadline.catch(() => undefined);
  // Not cleared when the outcome is known: it also bounds the draining of the answer's body.
  const finished = () => clearTimeout(timer);
  try {
    const addresses = await Promise.race([resolveChecked(hostname, options.allowPrivateNetworks), deadline]);
    const send = () => post(url, hostname, agentFor(url.protocol, addresses), options, started, deadline, finished);
    let outcome = await send();
    // A kept-alive socket the server closed as we reused it: the request never reached the application.
    if (outcome.failure === 'network' && outcome.error?.startsWith('ECONNRESET') && outcome.reusedSocket) outcome = await send();
    // With an answer, the timer stays until its body is drained (see post); without one, nothing is left to bound.
    if (outcome.statusCode === null) finished();
    const { reusedSocket: _, ...result } = outcome;
    return result;
  } catch (error) {
    finished();
    return classify(error, started);
  }
}

function post(
  url: URL,
  hostname: string,
  agent: http.Agent,
  options: SafePostOptions,
  started: number,
  deadline: Promise<never>,
  finished: () => void,
): Promise<AttemptOutcome & { reusedSocket?: boolean }> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: AttemptOutcome & { reusedSocket?: boolean }) => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    const request = client.request(
      {
        protocol: url.protocol,
        hostname,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(options.body)),
          'user-agent': USER_AGENT,
          ...options.headers,
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) response.destroy();
        });
        response.on('error', () => undefined);
        response.on('close', finished);
        if (status >= 200 && status < 300) settle({ ok: true, statusCode: status, failure: null, error: null, durationMs: Date.now() - started });
        else if (status >= 300 && status < 400) settle(failed('redirect', `redirect not followed (Location: ${response.headers.location ?? '-'})`, started, status));
        else settle(failed('http', `HTTP ${status}`, started, status));
      },
    );
    deadline.catch((error) => request.destroy(error));
    request.on('error', (error) => settle({ ...classify(error, started), reusedSocket: request.reusedSocket }));
    request.end(options.body);
  });
}
