import type { Worker } from 'node:worker_threads';
import type { AttemptOutcome } from '../../domain/webhook/retry-policy.ts';
import { startThread } from '../../platform/threads.ts';
import { safePost, type SafePostOptions } from './safe-http.ts';
import { SendLane, type LaneItem, type LaneResult } from './send-lane.ts';
import { signedHeaders, type SignedDelivery } from './signing.ts';

/** An attempt: the POST, and for a named delivery what signs it when it goes out. */
export interface Attempt extends SafePostOptions {
  signing?: Omit<SignedDelivery, 'body' | 'timestamp'>;
}

/** Sign (with this moment's timestamp) and POST. */
export function sendAttempt(attempt: Attempt): Promise<AttemptOutcome> {
  const { signing } = attempt;
  if (!signing) return safePost(attempt);
  const signed = signedHeaders({
    deliveryId: signing.deliveryId,
    event: signing.event,
    secret: signing.secret,
    previousSecret: signing.previousSecret,
    body: attempt.body,
    timestamp: Math.floor(Date.now() / 1000),
  });
  // Field by field rather than spread-then-override, as the dispatcher's attemptTo.
  return safePost({
    url: attempt.url,
    body: attempt.body,
    headers: { ...attempt.headers, ...signed },
    timeoutMs: attempt.timeoutMs,
    allowPrivateNetworks: attempt.allowPrivateNetworks,
  });
}

/** Where the dispatcher's attempts are made: a SendLane, on the dispatcher's thread or on one of its own. */
export interface DeliveryLane {
  add(items: readonly LaneItem[]): void;
  /** Items of these subscriptions not started yet are taken back: their ids. */
  drop(subscriptionIds: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}

export type ToLane = { kind: 'add'; items: readonly LaneItem[] } | { kind: 'drop'; request: number; subscriptionIds: readonly string[] };
export type FromLane = { kind: 'results'; results: LaneResult[] } | { kind: 'dropped'; request: number; ids: string[] };

interface Log {
  error(fields: object, message: string): void;
}

/**
 * On a thread of its own (`inThread`), the HTTP client's work and the signing, most of a
 * delivery's CPU, leave the main thread, and every slot's turn is free of the main thread's
 * latency: under a burst the main thread, busy with the appends and projections that feed the
 * dispatcher, was saturated while the other core idled.
 */
export function openDeliveryLane(options: { concurrency: number; inThread: boolean; log: Log }, onResults: (results: LaneResult[]) => void): DeliveryLane {
  if (!options.inThread) {
    const lane = new SendLane(options.concurrency, sendAttempt, onResults);
    return { add: (items) => lane.add(items), drop: async (ids) => lane.drop(ids), close: async () => undefined };
  }
  return new ThreadLane(options.concurrency, options.log, onResults);
}

/** A thread that dies this soon after it started counts as failing to start. */
const QUICK_EXIT_MS = 5000;
/** After this many quick exits in a row the lane runs on the main thread instead. */
const QUICK_EXITS_BEFORE_FALLBACK = 3;

class ThreadLane implements DeliveryLane {
  private worker!: Worker;
  private startedAt = 0;
  private quickExits = 0;
  /** The lane on the main thread, once threads kept failing to start. */
  private fallback: SendLane | undefined;
  /** Items added and not yet reported, so that a thread that ends does not lose them. */
  private readonly outstanding = new Set<string>();
  private readonly drops = new Map<number, (ids: string[]) => void>();
  private nextRequest = 0;
  private closing = false;

  constructor(
    private readonly concurrency: number,
    private readonly log: Log,
    private readonly onResults: (results: LaneResult[]) => void,
  ) {
    this.spawn();
  }

  add(items: readonly LaneItem[]): void {
    if (this.fallback) return this.fallback.add(items);
    for (const item of items) this.outstanding.add(item.id);
    this.send({ kind: 'add', items });
  }

  drop(subscriptionIds: readonly string[]): Promise<string[]> {
    if (this.fallback) return Promise.resolve(this.fallback.drop(subscriptionIds));
    const request = this.nextRequest++;
    return new Promise((resolve) => {
      this.drops.set(request, resolve);
      this.send({ kind: 'drop', request, subscriptionIds });
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    if (!this.fallback) await this.worker.terminate();
  }

  private send(message: ToLane): void {
    this.worker.postMessage(message);
  }

  private spawn(): void {
    this.startedAt = Date.now();
    this.worker = startThread(new URL('./sender-thread.ts', import.meta.url), { workerData: { concurrency: this.concurrency } });
    this.worker.on('message', (message: FromLane) => {
      if (message.kind === 'dropped') {
        for (const id of message.ids) this.outstanding.delete(id);
        this.drops.get(message.request)?.(message.ids);
        this.drops.delete(message.request);
        return;
      }
      for (const result of message.results) this.outstanding.delete(result.id);
      this.onResults(message.results);
    });
    this.worker.on('error', (error) => this.log.error({ err: error }, 'webhook sender thread failed'));
    this.worker.on('exit', (code) => this.lost(code));
  }

  /**
   * A thread that ends takes its attempts with it. Whether they reached their receivers is
   * unknown, so they count as network failures and are tried again (at-least-once, same id).
   */
  private lost(code: number): void {
    for (const resolve of this.drops.values()) resolve([]);
    this.drops.clear();
    const error = `webhook sender thread exited (code ${code})`;
    const results = [...this.outstanding].map((id): LaneResult => ({ id, startedAt: Date.now(), outcome: { ok: false, statusCode: null, failure: 'network', error, durationMs: 0 } }));
    this.outstanding.clear();
    if (results.length) this.onResults(results);
    if (this.closing) return;
    this.quickExits = Date.now() - this.startedAt < QUICK_EXIT_MS ? this.quickExits + 1 : 0;
    if (this.quickExits >= QUICK_EXITS_BEFORE_FALLBACK) {
      // A thread that cannot even start (a broken install, no memory for another isolate) must
      // not stop deliveries: they go on from the main thread, as with WEBHOOK_SEND_THREAD=false.
      this.log.error({ code }, 'webhook sender thread keeps exiting at start; attempts now run on the main thread');
      this.fallback = new SendLane(this.concurrency, sendAttempt, this.onResults);
      return;
    }
    this.log.error({ code }, 'webhook sender thread exited; starting another');
    this.spawn();
  }
}
