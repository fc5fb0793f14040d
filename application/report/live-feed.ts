import type Logger from 'bunyan';
import { reportStream } from '../../domain/report/events.ts';
import type { EventStore, Position, Subscription } from '../../platform/eventstore/port.ts';
import { REPORT_PROJECTION } from '../../projections/report/projection.ts';
import type { AppContext } from '../context.ts';

interface Listener {
  moved(position: Position): void;
  /** The feed stopped (shutdown): the page's stream should end, and the browser reconnect elsewhere. */
  ended(): void;
}

/**
 * Live report updates (the console's live pages, the MCP tool waiting for a decision): one event
 * store subscription per process, from the head when the first watcher starts, fanned out by
 * stream name to those watching that stream. A watcher hears only the stream it asked for, which
 * it was allowed to read (its organization's), so no event of another organization reaches it.
 * Watchers learn only that their stream moved, and where to: they read what to show from the read
 * model, at or after that position.
 */
export class LiveFeed {
  private readonly listeners = new Map<string, Set<Listener>>();
  private subscription: Promise<Subscription> | undefined;
  private closed = false;

  constructor(
    private readonly store: EventStore,
    private readonly categories: readonly string[],
    private readonly log: Logger,
  ) {}

  /** Tell `listener` the position of every event appended to `stream` from now on; returns the unsubscribe. */
  watch(stream: string, listener: Listener): () => void {
    if (this.closed) {
      listener.ended();
      return () => {};
    }
    this.subscription ??= this.subscribe();
    let set = this.listeners.get(stream);
    if (!set) this.listeners.set(stream, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      // After endAll the set is no longer the stream's: a newer page's set must stay.
      if (!set.size && this.listeners.get(stream) === set) this.listeners.delete(stream);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.endAll();
    await (await this.subscription)?.stop();
  }

  private endAll(): void {
    const all = [...this.listeners.values()].flatMap((set) => [...set]);
    this.listeners.clear();
    for (const listener of all) listener.ended();
  }

  private async subscribe(): Promise<Subscription> {
    const after = await this.store.headPosition();
    const subscription = this.store.subscribeToAll(
      async (events) => {
        for (const event of events) for (const listener of this.listeners.get(event.streamName) ?? []) listener.moved(event.position);
      },
      {
        after,
        filter: { categories: this.categories },
        progressIntervalMs: 60_000,
        onError: (error) => {
          // The pages watching end their streams and reconnect; the first to watch again starts a new subscription.
          this.log.error({ err: error }, 'report live feed stopped');
          this.subscription = undefined;
          this.endAll();
        },
      },
    );
    return subscription;
  }
}

const feeds = new WeakMap<EventStore, LiveFeed>();

/** The process's feed over this store (report streams). */
export function liveFeedOf(app: { store: EventStore; log: Logger }): LiveFeed {
  let feed = feeds.get(app.store);
  if (!feed) feeds.set(app.store, (feed = new LiveFeed(app.store, ['report'], app.log.child({ worker: 'report-live-feed' }))));
  return feed;
}

/**
 * Call `caughtUp` each time the report's stream moves, once the report read model shows that move
 * (so what it reads is current). Calls never overlap; events that arrive during one make one more
 * call, not one each. `ended` when the feed stops. Returns the unsubscribe.
 */
export function followReport(app: Pick<AppContext, 'store' | 'log' | 'readYourWrites'>, reportId: string, caughtUp: (position: Position) => Promise<void>, ended: () => void): () => void {
  let latest: Position | null = null;
  let running: Promise<void> | null = null;
  const drain = async () => {
    while (latest) {
      const position: Position = latest;
      latest = null;
      await app.readYourWrites([REPORT_PROJECTION], position);
      await caughtUp(position);
    }
  };
  return liveFeedOf(app).watch(reportStream(reportId), {
    moved(position) {
      latest = position;
      running ??= drain()
        .catch((error: unknown) => app.log.warn({ err: error, reportId }, 'live report update not delivered'))
        .finally(() => (running = null));
    },
    ended,
  });
}

/** At shutdown, before the HTTP server closes: the pages' streams end, so no open connection holds it. */
export async function closeLiveFeed(store: EventStore): Promise<void> {
  await feeds.get(store)?.close();
  feeds.delete(store);
}
