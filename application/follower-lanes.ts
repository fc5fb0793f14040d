import type { Position, RecordedEvent } from '../platform/eventstore/port.ts';

interface Mark {
  position: Position;
  done: boolean;
}

/**
 * Events handed out in global order and finished in any order; `safe` is the furthest position
 * such that every event at or before it is finished: the only honest checkpoint once events run
 * concurrently (Emmett's and Marten's async daemons keep the same "high-water mark", never the
 * position of the last event that happened to finish).
 */
export class CompletionWatermark {
  private marks: Mark[] = [];
  private head = 0;
  private safePosition: Position | undefined;

  get safe(): Position | undefined {
    return this.safePosition;
  }

  /** A position handed out, to be finished later by `finish(mark)`. */
  begin(position: Position): Mark {
    const mark = { position, done: false };
    this.marks.push(mark);
    return mark;
  }

  /** A position with nothing to run (a page's checkpoint past its last event): safe once all before it are. */
  pass(position: Position): boolean {
    return this.finish(this.begin(position));
  }

  /** Returns whether `safe` moved. */
  finish(mark: Mark): boolean {
    mark.done = true;
    const before = this.head;
    while (this.head < this.marks.length && this.marks[this.head]!.done) this.safePosition = this.marks[this.head++]!.position;
    const moved = this.head !== before;
    // Drop the finished prefix now and then, not on every call: the array stays short and cheap.
    if (this.head > 256) {
      this.marks = this.marks.slice(this.head);
      this.head = 0;
    }
    return moved;
  }
}

/** At most `free` holders at once; the others wait in arrival order. */
class Semaphore {
  private readonly waiters: Array<() => void> = [];

  constructor(private free: number) {}

  async acquire(): Promise<void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}

/**
 * Runs tasks one after another per key (a key's tasks in the order given) and concurrently across
 * keys, at most `limit` running at once. Tasks waiting behind a busy key do not hold a running
 * slot, so one slow stream does not stall the others; they are bounded instead by `buffer`, the
 * back-pressure `whenSlotFree` applies before the caller hands over the next task (a replay never
 * queues a whole history).
 */
export class KeyedLanes {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly running: Semaphore;
  private buffered = 0;
  private slotFreed: (() => void) | undefined;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    limit: number,
    private readonly buffer = limit * 16,
  ) {
    this.running = new Semaphore(limit);
  }

  async whenSlotFree(): Promise<void> {
    while (this.buffered >= this.buffer) await new Promise<void>((resolve) => (this.slotFreed = resolve));
  }

  /** `task` must not reject. */
  run(key: string, task: () => Promise<void>): void {
    this.buffered++;
    const previous = this.tails.get(key) ?? Promise.resolve();
    const tail: Promise<void> = previous
      .then(() => this.running.acquire())
      .then(task)
      .finally(() => {
        this.running.release();
        this.buffered--;
        if (this.tails.get(key) === tail) this.tails.delete(key);
        this.pending.delete(tail);
        const wake = this.slotFreed;
        this.slotFreed = undefined;
        wake?.();
      });
    this.tails.set(key, tail);
    this.pending.add(tail);
  }

  /** Resolves when every task given so far has finished. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }
}

/** The default ordering key: events of one stream run in order, streams run side by side. */
export const byStream = (event: RecordedEvent) => event.streamName;

/**
 * One holder per key at a time, in the order they asked: for a reaction that must not overlap
 * another reaction about the same thing that arrived in another lane (an execution driven from
 * its own events and from its report's decision).
 */
export class KeyedExclusive {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
