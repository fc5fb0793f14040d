/**
 * Point lookups asked in the same turn of the event loop, answered by one query. A follower that
 * runs events side by side asks for one row per event (is this report part of a pipeline?); under
 * a burst that was a statement per event, most of them finding nothing.
 */
export class BatchedLookup<V> {
  private waiting = new Map<string, Array<{ resolve: (value: V | undefined) => void; reject: (error: unknown) => void }>>();

  constructor(private readonly load: (keys: string[]) => Promise<Map<string, V>>) {}

  get(key: string): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      if (!this.waiting.size) setImmediate(() => void this.flush());
      const waiters = this.waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = new Map();
    try {
      const found = await this.load([...batch.keys()]);
      for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(found.get(key));
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  }
}
