import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import {
  ConcurrencyError,
  START,
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
import { WRONG_EXPECTED_REVISION, appendBatchSql, appendSql, eventColumns, readAllSql, readAllStatementName } from './postgres-sql.ts';
import { PollingSubscription } from './postgres-subscription.ts';
import { SharedTail } from './postgres-tail.ts';

export { eventStoreMigrations } from './postgres-sql.ts';

const MAX_INT64 = 9223372036854775807n;

export interface PostgresEventStoreOptions {
  /** How often a caught-up subscription looks for events committed by other processes. */
  pollIntervalMs?: number;
  /** Events per subscription batch when the subscriber gives no maxCount. */
  subscriptionBatchSize?: number;
  /** Told about failed subscription reads; the subscription retries them with a backoff. */
  onSubscriptionReadError?: (error: unknown) => void;
  /** Destroy the knex pool on close(): only when the store owns it. */
  destroyKnexOnClose?: boolean;
  /** Most appends written in one group commit. */
  maxAppendBatch?: number;
  /** Group commits in flight at once (each on its own connection). */
  concurrentCommits?: number;
  /** Newest events kept in memory for caught-up subscriptions (postgres-tail.ts). */
  tailEvents?: number;
}

interface QueuedAppend {
  streamName: string;
  events: readonly EventToAppend[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

interface BatchRow {
  n: number;
  next_revision: string | null;
  transaction_id: string | null;
  global_position: string | null;
  actual: string | null;
}

/**
 * The columns of an event row (eventColumns, readAllSql): int8s as text, created_at as epoch
 * seconds, data and metadata parsed; a page adds its read horizon, a filtered page `wanted`.
 */
type EventColumn = 'global_position' | 'transaction_id' | 'stream_name' | 'revision' | 'event_id' | 'event_type' | 'data' | 'metadata' | 'created_at';

/** What a subscription needs beyond ReadAllResult: whether its checkpoint moved past any event. */
export interface PageResult extends ReadAllResult {
  /** The page scanned at least one event, wanted or not. */
  passedEvents: boolean;
  /** The page stopped at maxCount events scanned: more may follow right away. */
  more: boolean;
}

/**
 * An int8 that pg sent as text. Parsing a string into a BigInt costs about 100 ns, and a page of
 * 1,000 events has three per event: as much as a tenth of reading the page. Through a Number it
 * costs half, and is exact up to 15 digits (every 15-digit integer is below 2^53).
 */
function int8(text: string): bigint {
  return text.length <= 15 ? BigInt(Number(text)) : BigInt(text);
}

/** The last position a transaction below `horizon` can have: a reader that has read up to it is caught up to the horizon. */
function justBelow(horizon: bigint): Position {
  return { commit: horizon - 1n, prepare: MAX_INT64 };
}

/**
 * Event rows come from pg as arrays (rowMode 'array'): pg then makes no object per row for us to
 * read once and drop, and a probe reading 50,000 events went 12% faster at the median.
 */
interface ArrayRows {
  rows: unknown[][];
  fields: Array<{ name: string }>;
}

type Layout = Record<EventColumn | 'horizon' | 'wanted', number>;
const layouts = new Map<string, Layout>();

/** Where each column of a read statement's rows is, found once per statement from pg's field list. */
function layoutOf(statement: string, fields: ReadonlyArray<{ name: string }>): Layout {
  let layout = layouts.get(statement);
  if (!layout) layouts.set(statement, (layout = Object.fromEntries(fields.map((field, i) => [field.name, i])) as Layout));
  return layout;
}

/**
 * The Date of an epoch in seconds (a float8 with microseconds), truncated to the millisecond as pg
 * does when it parses a timestamp: rounded to whole microseconds first, which the float8 holds to
 * within a quarter of one at today's epochs, so no value slips into the millisecond before.
 */
function dateOfEpoch(seconds: number): Date {
  return new Date(Math.floor(Math.round(seconds * 1e6) / 1000));
}

function recordedFrom(row: readonly unknown[], at: Layout): RecordedEvent {
  return {
    id: row[at.event_id] as string,
    streamName: row[at.stream_name] as string,
    type: row[at.event_type] as string,
    data: row[at.data] as Record<string, unknown>,
    metadata: (row[at.metadata] as Record<string, unknown> | null) ?? {},
    revision: int8(row[at.revision] as string),
    position: { commit: int8(row[at.transaction_id] as string), prepare: int8(row[at.global_position] as string) },
    createdAt: dateOfEpoch(row[at.created_at] as number),
  };
}

function encodeExpected(expected: ExpectedRevision): string {
  if (typeof expected === 'bigint') return expected < 0n ? 'no_stream' : expected.toString();
  return expected;
}

function isWrongExpectedRevision(error: unknown): error is { code: string; detail?: string } {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === WRONG_EXPECTED_REVISION;
}

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  private readonly subscriptions = new Set<PollingSubscription>();
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private closed = false;
  private readonly maxAppendBatch: number;
  private readonly appendQueue: QueuedAppend[] = [];
  private readonly concurrentCommits: number;
  /** Loops writing queued appends, at most concurrentCommits. */
  private committers = 0;
  private readonly tail: SharedTail;
  /** The highest read horizon a page has found (0: none yet); below it every event is final. */
  private knownHorizon = 0n;

  constructor(
    private readonly knex: Knex,
    private readonly options: PostgresEventStoreOptions = {},
  ) {
    this.pollIntervalMs = options.pollIntervalMs ?? 50;
    this.batchSize = options.subscriptionBatchSize ?? 1000;
    this.maxAppendBatch = options.maxAppendBatch ?? 200;
    this.concurrentCommits = options.concurrentCommits ?? 2;
    this.tail = new SharedTail((after, maxCount) => this.readPage(after, undefined, maxCount), {
      pageSize: this.batchSize,
      maxBuffered: options.tailEvents ?? 10_000,
      pollIntervalMs: this.pollIntervalMs,
    });
  }

  /**
   * Group commit: appends that arrive while the commits in flight (concurrentCommits of them) are
   * busy wait and then go together in one statement, so a burst of concurrent appends costs a few
   * WAL flushes instead of one each, and an append on an idle store goes within a turn of the
   * event loop. Each append keeps its own expected-revision check and its own result or error.
   * Two commits rather than one keep the next batch being written while one waits for its flush.
   */
  appendToStream(streamName: string, events: readonly EventToAppend[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    const expected = options.expectedRevision ?? 'any';
    // Nothing to write: only the check, which needs no commit of its own.
    if (events.length === 0) return this.appendAlone(streamName, events, expected);
    return new Promise((resolve, reject) => {
      this.appendQueue.push({ streamName, events, expected, resolve, reject });
      if (this.committers < this.concurrentCommits) {
        this.committers++;
        void this.commitQueued();
      }
    });
  }

  private async commitQueued(): Promise<void> {
    // One turn of the event loop first: callers whose previous append just resolved queue their
    // next one in the microtasks that follow, and should make this commit, not the one after.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.appendQueue.length) {
      const batch = this.appendQueue.splice(0, this.maxAppendBatch);
      if (batch.length === 1) {
        const [only] = batch;
        await this.appendAlone(only!.streamName, only!.events, only!.expected).then(only!.resolve, only!.reject);
      } else {
        await this.appendBatch(batch);
      }
      this.wakeSubscriptions();
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.committers--;
  }

  private async appendBatch(queued: QueuedAppend[]): Promise<void> {
    // Stable: appends to one stream keep their order; all batches lock streams in one order.
    const batch = [...queued].sort((a, b) => (a.streamName < b.streamName ? -1 : a.streamName > b.streamName ? 1 : 0));
    const owner: number[] = [];
    const index: number[] = [];
    const events: EventToAppend[] = [];
    batch.forEach((append, i) =>
      append.events.forEach((event, k) => {
        owner.push(i + 1);
        index.push(k + 1);
        events.push(event);
      }),
    );
    let rows: BatchRow[];
    try {
      ({ rows } = await this.knex.raw(appendBatchSql, [
        batch.map((a) => a.streamName),
        batch.map((a) => encodeExpected(a.expected)),
        owner,
        index,
        events.map((e) => e.id ?? randomUUID()),
        events.map((e) => e.type),
        events.map((e) => JSON.stringify(e.data)),
        events.map((e) => JSON.stringify(e.metadata ?? {})),
      ]));
    } catch {
      // One bad append (an unstorable payload, say) fails the whole statement: give each its own
      // fate and its own error by writing them one by one.
      for (const a of batch) await this.appendAlone(a.streamName, a.events, a.expected).then(a.resolve, a.reject);
      return;
    }
    for (const row of rows) {
      const append = batch[row.n - 1]!;
      if (row.actual !== null) {
        append.reject(new ConcurrencyError(append.streamName, append.expected, row.actual === 'no_stream' ? 'no_stream' : BigInt(row.actual)));
      } else {
        append.resolve({
          nextExpectedRevision: BigInt(row.next_revision!),
          position: { commit: BigInt(row.transaction_id!), prepare: BigInt(row.global_position!) },
        });
      }
    }
  }

  private async appendAlone(streamName: string, events: readonly EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    let row: { next_revision: string; transaction_id: string | null; global_position: string | null };
    try {
      const result = await this.knex.raw(appendSql, [
        streamName,
        encodeExpected(expected),
        events.map((e) => e.id ?? randomUUID()),
        events.map((e) => e.type),
        events.map((e) => JSON.stringify(e.data)),
        events.map((e) => JSON.stringify(e.metadata ?? {})),
      ]);
      row = result.rows[0];
    } catch (error) {
      if (isWrongExpectedRevision(error)) {
        const actual = error.detail && error.detail !== 'no_stream' ? BigInt(error.detail) : 'no_stream';
        throw new ConcurrencyError(streamName, expected, actual);
      }
      throw error;
    }
    return {
      nextExpectedRevision: BigInt(row.next_revision),
      position: row.transaction_id === null || row.global_position === null ? START : { commit: BigInt(row.transaction_id), prepare: BigInt(row.global_position) },
    };
  }

  private wakeSubscriptions(): void {
    this.tail.wake();
    for (const subscription of this.subscriptions) subscription.wake();
  }

  async readStream(streamName: string, options: { fromRevision?: bigint; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    const limited = options.maxCount !== undefined;
    const bindings: Knex.RawBinding[] = [streamName, (options.fromRevision ?? 0n).toString()];
    if (limited) bindings.push(options.maxCount!);
    const { rows, fields } = (await this.knex
      .raw(`select ${eventColumns} from events e where e.stream_name = ? and e.revision >= ?::bigint order by e.revision${limited ? ' limit ?' : ''}`, bindings)
      .options({ rowMode: 'array' })) as ArrayRows;
    const at = layoutOf('read_stream', fields);
    return rows.map((row) => recordedFrom(row, at));
  }

  async readAll(options: ReadAllOptions = {}): Promise<ReadAllResult> {
    const { events, checkpoint } = await this.readPage(options.after ?? START, options.filter, options.maxCount);
    return { events, checkpoint };
  }

  /**
   * readAll plus what a subscription needs: whether this page scanned any event at all (matching
   * or not), and whether it was cut short by maxCount so the next one should follow at once.
   * maxCount bounds the events scanned, not only those returned: see readAllSql.
   */
  async readPage(after: Position, filter: EventFilter | undefined, maxCount: number | undefined): Promise<PageResult> {
    if (maxCount !== undefined && !(Number.isInteger(maxCount) && maxCount > 0)) {
      throw new RangeError(`maxCount must be a positive integer, got ${maxCount}`);
    }
    if (comparePositions(after, justBelow(this.knownHorizon)) >= 0) return this.readBelow('fresh', after, filter, maxCount);
    const page = await this.readBelow('known', after, filter, maxCount);
    if (page.more) return page;
    // The known horizon came first: the rest of the page up to the current one.
    const rest = await this.readBelow('fresh', page.checkpoint, filter, maxCount === undefined ? undefined : maxCount - page.scanned);
    return { events: [...page.events, ...rest.events], checkpoint: rest.checkpoint, passedEvents: page.passedEvents || rest.passedEvents, more: rest.more };
  }

  /** One statement: the page after `after`, below the horizon it finds ('fresh') or below knownHorizon. */
  private async readBelow(horizon: 'fresh' | 'known', after: Position, filter: EventFilter | undefined, maxCount: number | undefined): Promise<PageResult & { scanned: number }> {
    const eventTypes = filter?.eventTypes;
    const categories = filter?.categories;
    const organizationId = filter?.organizationId;
    const shape = { eventTypes: eventTypes !== undefined, categories: categories !== undefined, organization: organizationId !== undefined, limit: maxCount !== undefined, horizon };
    const bindings: Knex.RawBinding[] = [];
    if (eventTypes !== undefined) bindings.push([...eventTypes]);
    if (categories !== undefined) bindings.push([...categories]);
    // Taken once: another page may raise knownHorizon while this one reads, and this page's
    // checkpoint must not pass what its own statement was bound to.
    const known = this.knownHorizon;
    if (horizon === 'known') bindings.push(known.toString());
    bindings.push(after.commit.toString(), after.prepare.toString());
    if (organizationId !== undefined) bindings.push(organizationId);
    if (maxCount !== undefined) bindings.push(maxCount);

    // A prepared statement per shape and connection: planning the page's statement took a third
    // of a millisecond each time, and its generic plan is the same index scan.
    const name = readAllStatementName(shape);
    const { rows, fields } = (await this.knex.raw(readAllSql(shape), bindings).options({ name, rowMode: 'array' })) as ArrayRows;
    const at = layoutOf(name, fields);
    let bound = known;
    if (horizon === 'fresh') {
      bound = BigInt(rows[0]![at.horizon] as string);
      if (bound > this.knownHorizon) this.knownHorizon = bound;
    }
    const scanned = rows.filter((r) => r[at.global_position] != null);
    const filtered = eventTypes !== undefined || categories !== undefined;
    const events = (filtered ? scanned.filter((r) => r[at.wanted]) : scanned).map((r) => recordedFrom(r, at));

    const more = maxCount !== undefined && scanned.length >= maxCount;
    let checkpoint: Position;
    if (more) {
      const last = scanned[scanned.length - 1]!;
      checkpoint = { commit: int8(last[at.transaction_id] as string), prepare: int8(last[at.global_position] as string) };
    } else {
      // Everything below the horizon has been read: no append there can still commit.
      const below = justBelow(bound);
      checkpoint = comparePositions(below, after) > 0 ? below : after;
    }
    return { events, checkpoint, passedEvents: scanned.length > 0, more, scanned: scanned.length };
  }

  subscribeToAll(handler: SubscriptionHandler, options: SubscribeOptions = {}): Subscription {
    if (this.closed) throw new Error('The event store is closed');
    const subscription = new PollingSubscription(
      {
        readPage: (after, maxCount) => this.subscriptionPage(after, options.filter, maxCount),
        pollIntervalMs: this.pollIntervalMs,
        onReadError: this.options.onSubscriptionReadError,
      },
      handler,
      {
        after: options.after ?? START,
        maxCount: options.maxCount ?? this.batchSize,
        progressIntervalMs: options.progressIntervalMs ?? 1000,
        onError: options.onError,
      },
    );
    this.subscriptions.add(subscription);
    void subscription.done.then(() => this.subscriptions.delete(subscription));
    return subscription;
  }

  /** From the shared tail when the subscription is there, else from the log (which may start the tail). */
  private async subscriptionPage(after: Position, filter: EventFilter | undefined, maxCount: number): Promise<PageResult> {
    const shared = await this.tail.page(after, filter, maxCount);
    if (shared) return shared;
    const page = await this.readPage(after, filter, maxCount);
    if (!page.more) this.tail.seed(page.checkpoint);
    return page;
  }

  /**
   * created_at is the appending transaction's start, so it does not grow with the position: the
   * earliest position among the events at or after `time`, and the one just before it. No event
   * can sit between the two: it would be in the same transaction, with the same created_at.
   * The CTE is materialized so that the events since `time` are found through the BRIN index on
   * created_at (1 ms for the last minutes of 300,000 events); left to itself the planner walks
   * the position index from the start, filtering, which is the scan this exists to avoid.
   */
  async positionBefore(time: Date): Promise<Position> {
    const { rows } = await this.knex.raw(
      `with recent as materialized (select transaction_id, global_position from events where created_at >= ?)
       select transaction_id::text as commit, global_position::text as prepare
       from recent order by transaction_id, global_position limit 1`,
      [time],
    );
    const row = rows[0] as { commit: string; prepare: string } | undefined;
    return row ? { commit: BigInt(row.commit), prepare: BigInt(row.prepare) - 1n } : this.headPosition();
  }

  async headPosition(): Promise<Position> {
    // Not limited to below the read horizon: the head must be at or after every committed event.
    const { rows } = await this.knex.raw(
      `select transaction_id::text as commit, global_position::text as prepare
       from events order by transaction_id desc, global_position desc limit 1`,
    );
    const row = rows[0] as { commit: string; prepare: string } | undefined;
    return row ? { commit: BigInt(row.commit), prepare: BigInt(row.prepare) } : START;
  }

  async ping(): Promise<void> {
    await this.knex.raw('select 1');
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    if (this.options.destroyKnexOnClose) await this.knex.destroy();
  }
}
