import type { ResourceLimits, Worker } from 'node:worker_threads';
import { startThread } from './threads.ts';

export interface PdfText {
  text: string;
  pages: number;
}

export interface PdfRequest {
  id: number;
  data: Uint8Array;
}

export interface PdfReply {
  id: number;
  read: PdfText | null;
}

/** A thread without a document for this long ends, and its memory with it. */
const IDLE_MS = 30_000;
/** A document that takes longer is taken as unreadable: its thread is ended, the next starts afresh. */
const TIMEOUT_MS = 60_000;

/**
 * The thread's heap and stack: pdf.js with its source map takes about 230 MB (below), a document
 * built to swell it is stopped at these and counts as unreadable, instead of taking the process's
 * memory with it.
 */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 64, stackSizeMb: 8 };

interface Queued {
  id: number;
  owner: string;
  data: Uint8Array<ArrayBuffer>;
  resolve: (read: PdfText | null) => void;
  reject: (error: Error) => void;
}

/**
 * Reads PDFs on a thread of its own, started on the first document and ended once idle.
 *
 * pdf.js, once loaded with its worker module, held about 230 MB of the service's memory for good
 * (half of it the source map tsx makes for it, decoded the first time its core-js polyfills format a
 * stack), while most processes read a PDF now and then or never; its polyfills also replace
 * Array.prototype.push for the whole isolate with a slower one. On a thread both stay there and go
 * when it ends. One document at a time (pdf.js is CPU-bound: a second one on the same thread would
 * not finish sooner), and one that sends pdf.js into a loop ends with its thread instead of holding
 * up every document behind it.
 *
 * Documents wait in one queue per owner (the organization), served in turn: a tenant that sends a
 * hundred files delays another tenant's next file by at most one document, not by its hundred.
 */
export class PdfReader {
  private thread: Worker | undefined;
  /** Each owner's documents in the order sent; owners in the order they are served next. */
  private readonly queues = new Map<string, Queued[]>();
  private current: (Queued & { timer: NodeJS.Timeout }) | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private nextId = 1;

  constructor(private readonly limits: { idleMs: number; timeoutMs: number; resourceLimits?: ResourceLimits } = { idleMs: IDLE_MS, timeoutMs: TIMEOUT_MS }) {}

  /** Whether a thread is up (it ends once idle). */
  get running(): boolean {
    return this.thread !== undefined;
  }

  read(bytes: Uint8Array, owner = ''): Promise<PdfText | null> {
    // A copy of its own to transfer: the caller's Buffer may be a view into a shared pool.
    const data: Uint8Array<ArrayBuffer> = new Uint8Array(bytes);
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(owner) ?? [];
      queue.push({ id: this.nextId++, owner, data, resolve, reject });
      this.queues.set(owner, queue);
      this.pump();
    });
  }

  /** The next document: the first of the owner whose turn it is, who then goes to the back. */
  private takeNext(): Queued | undefined {
    const [owner, queue] = this.queues.entries().next().value ?? [];
    if (owner === undefined || !queue) return undefined;
    this.queues.delete(owner);
    const next = queue.shift();
    if (queue.length) this.queues.set(owner, queue);
    return next;
  }

  private pump(): void {
    if (this.current) return;
    const next = this.takeNext();
    if (!next) return this.idle();
    clearTimeout(this.idleTimer);
    const thread = this.ensureThread();
    thread.ref();
    this.current = { ...next, timer: setTimeout(() => this.end(thread, null), this.limits.timeoutMs) };
    thread.postMessage({ id: next.id, data: next.data } satisfies PdfRequest, [next.data.buffer]);
  }

  private ensureThread(): Worker {
    if (this.thread) return this.thread;
    const thread = startThread(new URL('./pdf-thread.ts', import.meta.url), { resourceLimits: this.limits.resourceLimits ?? RESOURCE_LIMITS });
    thread.on('message', (reply: PdfReply) => {
      if (this.current?.id !== reply.id) return;
      this.settle((current) => current.resolve(reply.read));
    });
    // A thread that fails before any document (it could not start) is the machine's fault, not
    // the document's: the caller is told so and may try again later. One that ran out of its
    // memory (RESOURCE_LIMITS) did so on the document: unreadable, like one that takes too long.
    thread.on('error', (error: NodeJS.ErrnoException) => this.end(thread, error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? null : error));
    thread.on('exit', () => this.end(thread, null));
    this.thread = thread;
    return thread;
  }

  /** The thread is gone or must go: the document it was reading is unreadable (or, on an error, fails). */
  private end(thread: Worker, error: Error | null): void {
    if (this.thread !== thread) return;
    this.thread = undefined;
    void thread.terminate();
    this.settle((current) => (error ? current.reject(error) : current.resolve(null)));
  }

  private settle(finish: (current: Queued) => void): void {
    const current = this.current;
    if (!current) return this.pump();
    clearTimeout(current.timer);
    this.current = undefined;
    finish(current);
    this.pump();
  }

  private idle(): void {
    const thread = this.thread;
    if (!thread) return;
    // An idle thread keeps no process alive, and ends after a while.
    thread.unref();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.end(thread, null), this.limits.idleMs);
    this.idleTimer.unref();
  }
}

const reader = new PdfReader();

/**
 * The text of a PDF and its page count, or null when pdf.js cannot read it (corrupt, protected,
 * too slow, too large for the thread). `owner`: whose document it is (the organization), so that
 * each owner's documents wait in a queue of their own.
 */
export function readPdfText(bytes: Uint8Array, owner?: string): Promise<PdfText | null> {
  return reader.read(bytes, owner);
}
