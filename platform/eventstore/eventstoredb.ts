import { randomUUID } from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  END,
  ErrorType,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START as CLIENT_START,
  STREAM_EXISTS,
  eventTypeFilter,
  excludeSystemEvents,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type Direction,
  type Filter,
  type JSONEventData,
  type Position as ClientPosition,
  type ReadPosition,
  type ReadRevision,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  ConcurrencyError,
  START,
  categoryOf,
  comparePositions,
  type AppendResult,
  type EventFilter,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type Position,
  type ReadAllOptions,
  type ReadAllResult,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
  type SubscriptionHandler,
} from './port.ts';

export interface EventStoreDbStoreOptions {
  /** Most items (events and checkpoints) per handler call when the subscriber gives no maxCount. */
  subscriptionBatchSize?: number;
  /** Events per page when readAll scans $all. */
  readPageSize?: number;
  /** How long ping() waits for an answer, in milliseconds. */
  pingTimeoutMs?: number;
  /**
   * Events the server scans between two checkpoints of a filtered subscription (its
   * maxSearchWindow; the interval multiplier stays 1). With 1, the default, a live subscriber's
   * checkpoint passes every event, wanted or not, as soon as it is written: read-your-writes
   * waits and the contract suite rely on that. Larger values make catch-up over long unwanted
   * stretches cheaper (fewer server page reads and checkpoint messages), but the checkpoint then
   * trails unwanted live events by up to this many, indefinitely when writes stop.
   */
  checkpointWindow?: number;
}

// ---------------------------------------------------------------------------------------------
// Pure mapping between the port and the client (exported for the unit tests).
// ---------------------------------------------------------------------------------------------

/** -1n is how callers (handleCommand) say "no stream yet"; the server takes revisions as uint64. */
export function toClientExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    case 'any':
      return ANY;
    default:
      return expected < 0n ? NO_STREAM : expected;
  }
}

/** The server's check, for an empty append that never reaches the server. */
export function expectationHolds(expected: ExpectedRevision, actual: bigint | 'no_stream'): boolean {
  if (expected === 'any') return true;
  if (expected === 'stream_exists') return actual !== 'no_stream';
  if (expected === 'no_stream' || expected < 0n) return actual === 'no_stream';
  return actual === expected;
}

function errorType(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { type?: unknown }).type : undefined;
}

/**
 * The port's ConcurrencyError for a WrongExpectedVersionError, else undefined. Matched on the
 * error's `type` rather than instanceof, so a second copy of the client package still matches.
 */
export function toConcurrencyError(error: unknown, streamName: string, expected: ExpectedRevision): ConcurrencyError | undefined {
  if (errorType(error) !== ErrorType.WRONG_EXPECTED_VERSION) return undefined;
  const reported = (error as { actualVersion?: unknown }).actualVersion;
  const actual = typeof reported === 'bigint' && reported >= 0n ? reported : 'no_stream';
  return new ConcurrencyError(streamName, expected, actual);
}

export function isStreamNotFound(error: unknown): boolean {
  return errorType(error) === ErrorType.STREAM_NOT_FOUND;
}

/**
 * The port's START is "before everything"; the client's START constant says so without naming a
 * log position, which the server might not accept as a record boundary.
 */
export function toReadPosition(after: Position | undefined): ReadPosition {
  if (after === undefined || (after.commit === 0n && after.prepare === 0n)) return CLIENT_START;
  return { commit: after.commit, prepare: after.prepare };
}

export function fromClientPosition(position: ClientPosition): Position {
  return { commit: position.commit, prepare: position.prepare };
}

export function laterOf(a: Position, b: Position): Position {
  return comparePositions(a, b) >= 0 ? a : b;
}

// The server evaluates these with .NET regular expressions; this escape set means the same there.
function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

/** Exact names: a prefix filter on event types would let "LoanApproved" match "LoanApprovedV2". */
export function eventTypeRegex(eventTypes: readonly string[]): string {
  // An empty list matches nothing, as in the PostgreSQL adapter; (?!) never matches.
  if (eventTypes.length === 0) return '(?!)';
  return `^(?:${eventTypes.map(escapeRegex).join('|')})$`;
}

/** A category is the stream name up to its first '-', or the whole name when it has none. */
export function categoryRegex(categories: readonly string[]): string {
  if (categories.length === 0) return '(?!)';
  return `^(?:${categories.map(escapeRegex).join('|')})(?:-|$)`;
}

/** $-prefixed types ($metadata, $>, ...) and $-prefixed streams belong to the server. */
export function isSystemEvent(streamName: string, type: string): boolean {
  return type.startsWith('$') || streamName.startsWith('$');
}

/** The exact port semantics, applied to every event whatever the server filtered. */
export function matchesFilter(streamName: string, type: string, filter: EventFilter | undefined, data?: unknown): boolean {
  if (isSystemEvent(streamName, type)) return false;
  // The server has no such index: the events are scanned, but another tenant's are never returned (nor opened).
  if (filter?.organizationId !== undefined && (data as { organizationId?: unknown } | undefined)?.organizationId !== filter.organizationId) return false;
  if (filter?.eventTypes !== undefined && !filter.eventTypes.includes(type)) return false;
  if (filter?.categories !== undefined && !filter.categories.includes(categoryOf(streamName))) return false;
  return true;
}

const NO_POSITION = 2n ** 64n - 1n;

type CheckpointCallback = (subscription: AllStreamSubscription, position: ClientPosition) => void;

/**
 * The server-side filter for a subscription. Always one, even unfiltered, because only filtered
 * subscriptions report checkpoints, and system events are not worth sending. With both lists
 * the server filters on event types (usually the narrower) and matchesFilter checks categories.
 */
export function buildSubscriptionFilter(filter: EventFilter | undefined, checkpointReached?: CheckpointCallback, checkpointWindow = 1): Filter {
  // The server checkpoints every maxSearchWindow x checkpointInterval events it considers.
  const common = { checkpointInterval: 1, maxSearchWindow: checkpointWindow, checkpointReached };
  if (filter?.eventTypes !== undefined) return eventTypeFilter({ regex: eventTypeRegex(filter.eventTypes), ...common });
  if (filter?.categories !== undefined) return streamNameFilter({ regex: categoryRegex(filter.categories), ...common });
  return excludeSystemEvents(common);
}

function asRecord(value: unknown): Record<string, unknown> {
  if (value instanceof Uint8Array) {
    try {
      return asRecord(JSON.parse(Buffer.from(value).toString('utf8')));
    } catch {
      return { base64: Buffer.from(value).toString('base64') };
    }
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  // Written by something other than this service (we only write objects): keep it, wrapped.
  return value === undefined ? {} : { value };
}

function asDate(value: unknown): Date {
  if (value instanceof Date) return value;
  // Older clients gave .NET ticks (100 ns since the Unix epoch, as the server sends them).
  if (typeof value === 'number' || typeof value === 'bigint') return new Date(Number(BigInt(value) / 10_000n));
  return new Date(0);
}

/** undefined for what the port never returns: system events, and a link whose target is gone. */
export function toRecordedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const event = resolved.event;
  if (!event || isSystemEvent(event.streamId, event.type)) return undefined;
  // Servers before 22.6 give events read from a stream no position (or uint64 max for one).
  const position = event.position && event.position.commit !== NO_POSITION ? event.position : undefined;
  if (position === undefined) {
    throw new Error(`EventStoreDB returned event ${event.id} without its position: the server must be 22.6 or later`);
  }
  return {
    id: event.id,
    streamName: event.streamId,
    type: event.type,
    data: asRecord(event.data),
    metadata: event.metadata === undefined ? {} : asRecord(event.metadata),
    revision: event.revision,
    position: fromClientPosition(position),
    createdAt: asDate(event.created),
  };
}

export function toEventData(event: EventToAppend): JSONEventData {
  return {
    id: event.id ?? randomUUID(),
    contentType: 'application/json',
    type: event.type,
    data: event.data,
    metadata: event.metadata,
  };
}

// ---------------------------------------------------------------------------------------------
// The adapter.
// ---------------------------------------------------------------------------------------------

export class EventStoreDbStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  private readonly client: EventStoreDBClient;
  private readonly subscriptions = new Set<EventStoreDbSubscription>();
  private readonly batchSize: number;
  private readonly pageSize: number;
  private readonly pingTimeoutMs: number;
  private readonly checkpointWindow: number;

  /** A connection string (esdb://host:2113?tls=false), or a client built another way. */
  constructor(connection: string | EventStoreDBClient, options: EventStoreDbStoreOptions = {}) {
    this.client = typeof connection === 'string' ? EventStoreDBClient.connectionString(connection) : connection;
    this.batchSize = options.subscriptionBatchSize ?? 1000;
    this.pageSize = options.readPageSize ?? 1000;
    this.pingTimeoutMs = options.pingTimeoutMs ?? 5000;
    this.checkpointWindow = options.checkpointWindow ?? 1;
  }

  async appendToStream(streamName: string, events: readonly EventToAppend[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    const expected = options.expectedRevision ?? 'any';
    // The server's answer to an empty append has no position and reports a missing stream as
    // revision 0, so check the expectation here and write nothing, as the PostgreSQL adapter does.
    if (events.length === 0) return this.appendNothing(streamName, expected);
    let result;
    try {
      result = await this.client.appendToStream(streamName, events.map(toEventData), {
        expectedRevision: toClientExpectedRevision(expected),
      });
    } catch (error) {
      throw toConcurrencyError(error, streamName, expected) ?? error;
    }
    // Reached only with throwOnAppendFailure=false in the connection string, where a conflict
    // comes back as a result (whose revision client 6.2.1 garbles on batch appends).
    if (!result.success) {
      const actual = result.nextExpectedRevision;
      throw new ConcurrencyError(streamName, expected, actual >= 0n ? actual : 'no_stream');
    }
    return {
      nextExpectedRevision: result.nextExpectedRevision,
      // The position is optional in the protocol; when a server leaves it out, the head is at or
      // after the append, which is all a read-your-writes wait needs.
      position: result.position ? fromClientPosition(result.position) : await this.headPosition(),
    };
  }

  private async appendNothing(streamName: string, expected: ExpectedRevision): Promise<AppendResult> {
    const last = await this.readStreamEvents(streamName, { fromRevision: END, maxCount: 1, direction: BACKWARDS });
    const actual = last.length > 0 ? last[0]!.revision : 'no_stream';
    if (!expectationHolds(expected, actual)) throw new ConcurrencyError(streamName, expected, actual);
    return { nextExpectedRevision: actual === 'no_stream' ? -1n : actual, position: START };
  }

  async readStream(streamName: string, options: { fromRevision?: bigint; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    if (options.maxCount === 0) return [];
    return this.readStreamEvents(streamName, {
      fromRevision: options.fromRevision ?? CLIENT_START,
      maxCount: options.maxCount,
      direction: FORWARDS,
    });
  }

  private async readStreamEvents(streamName: string, options: { fromRevision: ReadRevision; maxCount?: number; direction: Direction }): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamName, options)) {
        const event = toRecordedEvent(resolved);
        if (event) events.push(event);
      }
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw error;
    }
    return events;
  }

  /**
   * An unfiltered read pages through $all. @eventstore/db-client 6.2.1's readAll cannot filter on
   * the server (it has no `filter` option and always sends NoFilter; only subscriptions take one),
   * so a filtered read is a filtered catch-up subscription instead: see readAllFiltered.
   */
  async readAll(options: ReadAllOptions = {}): Promise<ReadAllResult> {
    const after = options.after ?? START;
    const { filter, maxCount } = options;
    const events: RecordedEvent[] = [];
    let scanned = after;
    if (maxCount === 0) return { events, checkpoint: after };
    if (filter !== undefined) return this.readAllFiltered(after, filter, maxCount);

    let from = toReadPosition(after);
    for (;;) {
      const wanted = maxCount === undefined ? this.pageSize : maxCount - events.length;
      // The page need not be larger than what is still wanted (+1: see below).
      const pageSize = Math.min(this.pageSize, wanted + 1);
      const page: AllStreamResolvedEvent[] = [];
      for await (const resolved of this.client.readAll({ fromPosition: from, maxCount: pageSize, direction: FORWARDS })) {
        page.push(resolved);
      }
      for (const resolved of page) {
        const recorded = resolved.event;
        if (!recorded) continue;
        // A read of $all starts at its position, inclusively: the event there was already seen.
        if (comparePositions(recorded.position, scanned) <= 0) continue;
        scanned = fromClientPosition(recorded.position);
        const event = toRecordedEvent(resolved);
        if (!event) continue;
        events.push(event);
        // Stop on the last wanted event, so the checkpoint is not past events not returned.
        if (maxCount !== undefined && events.length >= maxCount) return { events, checkpoint: scanned };
      }
      if (page.length < pageSize) return { events, checkpoint: scanned };
      from = toReadPosition(scanned);
    }
  }

  /**
   * The server filters: the read is a filtered catch-up subscription from `after` that ends at
   * the log's head as it stood when the read began, or at maxCount events. Only wanted events,
   * and a bodiless checkpoint per event scanned, cross the wire. The checkpoint window is 1 here
   * whatever the store's setting, so a checkpoint always reaches the head and the read ends.
   */
  private async readAllFiltered(after: Position, filter: EventFilter, maxCount: number | undefined): Promise<ReadAllResult> {
    const head = await this.headPosition();
    const events: RecordedEvent[] = [];
    let checkpoint = after;
    if (comparePositions(after, head) >= 0) return { events, checkpoint };
    let failure: unknown;
    const subscription: EventStoreDbSubscription = new EventStoreDbSubscription(
      this.client,
      async (batch, batchCheckpoint) => {
        for (const event of batch) {
          // Past what was asked for: the checkpoint stays on the last event returned.
          if (events.length === maxCount) return void subscription.stop();
          // Written since the read began: in log order, so everything up to the head was seen.
          if (comparePositions(event.position, head) > 0) {
            checkpoint = head;
            return void subscription.stop();
          }
          events.push(event);
          checkpoint = event.position;
        }
        if (events.length === maxCount) return void subscription.stop();
        checkpoint = comparePositions(batchCheckpoint, head) < 0 ? batchCheckpoint : head;
        if (comparePositions(checkpoint, head) >= 0) void subscription.stop();
      },
      { after, filter, batchSize: this.pageSize, checkpointWindow: 1, onError: (error) => (failure = error) },
    );
    await subscription.done;
    if (failure !== undefined) throw failure;
    return { events, checkpoint };
  }

  subscribeToAll(handler: SubscriptionHandler, options: SubscribeOptions = {}): Subscription {
    const subscription = new EventStoreDbSubscription(this.client, handler, {
      after: options.after ?? START,
      filter: options.filter,
      batchSize: options.maxCount ?? this.batchSize,
      checkpointWindow: this.checkpointWindow,
      onError: options.onError,
    });
    this.subscriptions.add(subscription);
    void subscription.done.then(() => this.subscriptions.delete(subscription));
    return subscription;
  }

  /**
   * EventStoreDB keeps no index by time, but its log is written in time order: read $all backwards
   * from the end, the first record stored before `time` is the answer, and every record after it
   * was stored at or after `time`. A replay since a recent time (a webhook redelivery since a date)
   * reads only what follows it, not the whole log from its start.
   */
  async positionBefore(time: Date): Promise<Position> {
    let from: ReadPosition = END;
    let seen: ClientPosition | undefined;
    for (;;) {
      let read = 0;
      let older = 0;
      for await (const resolved of this.client.readAll({ fromPosition: from, direction: BACKWARDS, maxCount: this.pageSize })) {
        read += 1;
        const recorded = resolved.event;
        // A page read from a position may start with the record there, the last of the page before.
        if (!recorded || (seen !== undefined && comparePositions(recorded.position, seen) >= 0)) continue;
        older += 1;
        seen = recorded.position;
        if (asDate(recorded.created) < time) return fromClientPosition(recorded.position);
      }
      // The start of the log reached: nothing was stored before `time`.
      if (read < this.pageSize || older === 0) return START;
      from = seen!;
    }
  }

  async headPosition(): Promise<Position> {
    for await (const resolved of this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1 })) {
      if (resolved.event) return fromClientPosition(resolved.event.position);
    }
    return START;
  }

  async ping(): Promise<void> {
    for await (const _ of this.client.readAll({
      fromPosition: END,
      direction: BACKWARDS,
      maxCount: 1,
      deadline: this.pingTimeoutMs,
    })) {
      // Draining the read is the point: it answered.
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.client.dispose();
  }
}

/** Travels in the subscription's stream, in order, between the events around it. */
class CheckpointMarker {
  constructor(readonly position: Position) {}
}

type Item = AllStreamResolvedEvent | CheckpointMarker;

interface EventStoreDbSubscriptionOptions {
  after: Position;
  filter: EventFilter | undefined;
  batchSize: number;
  checkpointWindow: number;
  onError: ((error: unknown) => void) | undefined;
}

/**
 * A catch-up subscription on the client's subscribeToAll, read with for-await so the server's
 * stream waits while the handler works (gRPC flow control follows the Readable's buffer).
 *
 * The client hands checkpoints to a callback while the events before them may still sit unread
 * in the buffer; calling the handler from there would report a checkpoint past undelivered
 * events. So the callback pushes a marker into the same Readable (it runs inside the stream's
 * _transform, where pushing is the Transform protocol) and the loop meets it in order.
 */
class EventStoreDbSubscription implements Subscription {
  readonly done: Promise<void>;
  private stopping = false;
  private readonly source: AllStreamSubscription;

  constructor(
    client: EventStoreDBClient,
    private readonly handler: SubscriptionHandler,
    private readonly options: EventStoreDbSubscriptionOptions,
  ) {
    const pushCheckpoint: CheckpointCallback = (subscription, position) => {
      if (!subscription.destroyed) subscription.push(new CheckpointMarker(fromClientPosition(position)));
    };
    this.source = client.subscribeToAll(
      { fromPosition: toReadPosition(options.after), filter: buildSubscriptionFilter(options.filter, pushCheckpoint, options.checkpointWindow) },
      // Lets a batch grow to batchSize while catching up; live, batches are what has arrived.
      { highWaterMark: options.batchSize },
    );
    // Errors reach run() through the iterator; this only keeps one arriving after shutdown
    // (the gRPC stream is cancelled asynchronously) from crashing the process.
    this.source.on('error', () => {});
    this.done = this.run();
  }

  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      // Wakes a loop that is waiting for events; a batch in flight finishes first.
      await this.shutdown();
    }
    await this.done;
  }

  private async shutdown(): Promise<void> {
    await this.source.unsubscribe().catch(() => {});
    this.source.destroy();
  }

  private async run(): Promise<void> {
    // What the handler has been told, and the last event it was given: kept apart because a
    // server checkpoint is only trusted to move the first, never to hide a later event.
    let checkpoint = this.options.after;
    let lastEvent = this.options.after;
    let failure: unknown;
    try {
      for await (const first of this.source as AsyncIterable<Item>) {
        if (this.stopping) break;
        const items: Item[] = [first];
        while (items.length < this.options.batchSize && this.source.readableLength > 0) {
          const next = this.source.read() as Item | null;
          if (next === null) break;
          items.push(next);
        }

        const events: RecordedEvent[] = [];
        let batchCheckpoint = checkpoint;
        for (const item of items) {
          if (item instanceof CheckpointMarker) {
            batchCheckpoint = laterOf(batchCheckpoint, item.position);
            continue;
          }
          const recorded = item.event;
          if (!recorded) continue;
          const position = fromClientPosition(recorded.position);
          // Delivered already (or at `after` itself): exactly once per subscription.
          if (comparePositions(position, lastEvent) <= 0) continue;
          lastEvent = position;
          batchCheckpoint = laterOf(batchCheckpoint, position);
          if (matchesFilter(recorded.streamId, recorded.type, this.options.filter, recorded.data)) events.push(toRecordedEvent(item)!);
        }
        if (events.length === 0 && comparePositions(batchCheckpoint, checkpoint) <= 0) continue;

        await this.handler(events, batchCheckpoint);
        checkpoint = batchCheckpoint;
        if (this.stopping) break;
      }
      // A catch-up subscription has no natural end: the server or the connection gave up.
      if (!this.stopping) failure = new Error('EventStoreDB ended the subscription');
    } catch (error) {
      if (!this.stopping) failure = error;
    } finally {
      this.stopping = true;
      await this.shutdown();
    }
    if (failure !== undefined) {
      try {
        this.options.onError?.(failure);
      } catch {
        // An onError that throws must not turn `done` into a rejection nobody awaits.
      }
    }
  }
}
