import type { Family } from './events.ts';

/** How one attempt ended, as the safe client reports it. */
export type FailureKind =
  | 'http' // answered with a status that is neither 2xx nor 3xx
  | 'redirect' // 3xx: never followed
  | 'timeout'
  | 'network' // DNS, refused connection, reset, TLS
  | 'refused'; // the destination resolved to an address we do not deliver to

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  failure: FailureKind | null;
  error: string | null;
  durationMs: number;
  /** The range of a refused address (ipaddr.js names: loopback, private, ...). */
  refusedRange?: string;
  /** The system error code of a network failure (ENOTFOUND, ECONNREFUSED, ...). */
  errorCode?: string;
}

const LEGACY_RETRYABLE_STATUS = new Set([408, 425, 429]);

/**
 * The two families' rules side by side (spec, Events A and Delivery; Limits). Both wait the
 * configured delays between attempts (5 s, 30 s, 120 s by default), so "up to 3 retries" is the
 * length of that list.
 */
export const RETRY_POLICIES: Record<Family, { retryable: (outcome: AttemptOutcome) => boolean; disableAfterConsecutiveFailures: number | null }> = {
  legacy: {
    retryable: (o) => o.failure === 'network' || o.failure === 'timeout' || (o.failure === 'http' && o.statusCode !== null && (o.statusCode >= 500 || LEGACY_RETRYABLE_STATUS.has(o.statusCode))),
    disableAfterConsecutiveFailures: null,
  },
  named: {
    retryable: (o) => !o.ok,
    disableAfterConsecutiveFailures: 20,
  },
};

export type NextStep = { kind: 'succeeded' } | { kind: 'retry'; delayMs: number } | { kind: 'failed' };

/** After attempt number `attempt` (1 = the initial one) ended with `outcome`. */
export function nextStep(family: Family, attempt: number, outcome: AttemptOutcome, delaysMs: readonly number[]): NextStep {
  if (outcome.ok) return { kind: 'succeeded' };
  const delay = delaysMs[attempt - 1];
  if (delay === undefined || !RETRY_POLICIES[family].retryable(outcome)) return { kind: 'failed' };
  return { kind: 'retry', delayMs: delay };
}
