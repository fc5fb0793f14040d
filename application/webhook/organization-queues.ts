/** One organization's items, oldest first; taken from the front without moving the rest. */
class Fifo<T> {
  private items: Array<{ item: T; seq: number }> = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  /** Arrival number of the oldest item. */
  get firstSeq(): number {
    return this.items[this.head]!.seq;
  }

  push(item: T, seq: number): void {
    this.items.push({ item, seq });
  }

  shift(): T {
    const { item } = this.items[this.head++]!;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  remove(drop: (item: T) => boolean): T[] {
    const dropped: T[] = [];
    const kept: Array<{ item: T; seq: number }> = [];
    for (const entry of this.items.slice(this.head)) {
      if (drop(entry.item)) dropped.push(entry.item);
      else kept.push(entry);
    }
    this.items = kept;
    this.head = 0;
    return dropped;
  }
}

/**
 * Items waiting per organization, in order of arrival across organizations. Taking the oldest
 * item an organization may have costs the number of organizations waiting, not the number of
 * items: a burst holds thousands of one organization's rows.
 */
export class OrganizationQueues<T> {
  private readonly waiting = new Map<string, Fifo<T>>();
  private seq = 0;
  private total = 0;

  get size(): number {
    return this.total;
  }

  push(organizationId: string, item: T): void {
    let queue = this.waiting.get(organizationId);
    if (!queue) this.waiting.set(organizationId, (queue = new Fifo()));
    queue.push(item, this.seq++);
    this.total++;
  }

  /** The oldest item of the organizations `eligible` allows, taken out. */
  takeOldest(eligible: (organizationId: string) => boolean): T | undefined {
    let found: [string, Fifo<T>] | undefined;
    for (const entry of this.waiting) {
      if (eligible(entry[0]) && (!found || entry[1].firstSeq < found[1].firstSeq)) found = entry;
    }
    if (!found) return undefined;
    const [organizationId, queue] = found;
    const item = queue.shift();
    this.total--;
    if (!queue.length) this.waiting.delete(organizationId);
    return item;
  }

  /** Take out the items `drop` names, by organization. */
  remove(drop: (item: T) => boolean): Map<string, T[]> {
    const removed = new Map<string, T[]>();
    for (const [organizationId, queue] of this.waiting) {
      const dropped = queue.remove(drop);
      if (!dropped.length) continue;
      removed.set(organizationId, dropped);
      this.total -= dropped.length;
      if (!queue.length) this.waiting.delete(organizationId);
    }
    return removed;
  }

  /** Items waiting per organization. */
  *lengths(): Generator<[string, number]> {
    for (const [organizationId, queue] of this.waiting) yield [organizationId, queue.length];
  }
}
