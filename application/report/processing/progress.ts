import type { Position } from '../../../platform/eventstore/port.ts';

/** At most `size` holders at once; acquire() waits for a free slot. */
export class Slots {
  private used = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async acquire(): Promise<void> {
    if (this.used < this.size) {
      this.used++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.used--;
  }
}

/**
 * Work taken in store order but finished in any order: the checkpoint may only move past an
 * event once it and everything before it is done, so a restart never skips unfinished work.
 */
export class OrderedProgress {
  private readonly entries: Array<{ position: Position; done: boolean }> = [];
  private safe: Position | null = null;

  /** Track an item; call the returned function when it is done. */
  begin(position: Position): () => void {
    const entry = { position, done: false };
    this.entries.push(entry);
    return () => {
      entry.done = true;
      this.advance();
    };
  }

  /** A position already complete on arrival (the end of a batch the filter thinned out). */
  mark(position: Position): void {
    this.entries.push({ position, done: true });
    this.advance();
  }

  /** The furthest position whose work, and all before it, is done. */
  get safePosition(): Position | null {
    return this.safe;
  }

  private advance(): void {
    while (this.entries.length && this.entries[0]!.done) this.safe = this.entries.shift()!.position;
  }
}
