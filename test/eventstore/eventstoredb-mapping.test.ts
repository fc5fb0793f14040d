/**
 * The EventStoreDB adapter without a server: its pure mapping helpers, and the adapter itself
 * over a fake client. The subscription tests feed real protobuf responses through the client's
 * own Subscription stream, so checkpoint ordering and back-pressure are the client's, not a mock's.
 */
import { PassThrough, Readable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type EventStoreDBClient,
  type Position as ClientPosition,
  type ReadAllOptions as ClientReadAllOptions,
  type SubscribeToAllOptions,
} from '@eventstore/db-client';
import { Subscription as ClientSubscription } from '@eventstore/db-client/dist/streams/utils/Subscription.js';
import { convertGrpcEvent } from '@eventstore/db-client/dist/utils/convertGrpcEvent.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import {
  EventStoreDbStore,
  buildSubscriptionFilter,
  categoryRegex,
  eventTypeRegex,
  expectationHolds,
  isStreamNotFound,
  matchesFilter,
  toClientExpectedRevision,
  toConcurrencyError,
  toEventData,
  toReadPosition,
  toRecordedEvent,
} from '../../platform/eventstore/eventstoredb.ts';
import { ConcurrencyError, START, comparePositions, type Position, type RecordedEvent } from '../../platform/eventstore/port.ts';
import { eventually, sleep } from '../support/wait.ts';

const { ReadResp } = streamsPb;
const { UUID, StreamIdentifier } = sharedPb;

// --- pure mapping --------------------------------------------------------------------------

test('expected revisions map to the client constants; -1n means no stream', () => {
  assert.is(toClientExpectedRevision('no_stream'), 'no_stream');
  assert.is(toClientExpectedRevision('stream_exists'), 'stream_exists');
  assert.is(toClientExpectedRevision('any'), 'any');
  assert.is(toClientExpectedRevision(4n), 4n);
  assert.is(toClientExpectedRevision(0n), 0n);
  assert.is(toClientExpectedRevision(-1n), 'no_stream');
});

test('expectationHolds mirrors the server check', () => {
  assert.ok(expectationHolds('any', 'no_stream'));
  assert.ok(expectationHolds('any', 3n));
  assert.ok(expectationHolds('no_stream', 'no_stream'));
  assert.not.ok(expectationHolds('no_stream', 0n));
  assert.ok(expectationHolds(-1n, 'no_stream'));
  assert.ok(expectationHolds('stream_exists', 0n));
  assert.not.ok(expectationHolds('stream_exists', 'no_stream'));
  assert.ok(expectationHolds(2n, 2n));
  assert.not.ok(expectationHolds(2n, 3n));
  assert.not.ok(expectationHolds(0n, 'no_stream'));
});

test('WrongExpectedVersionError becomes ConcurrencyError with the actual revision', () => {
  const conflict = new WrongExpectedVersionError(undefined, { streamName: 'loan-1', expected: 1n, current: 5n });
  const mapped = toConcurrencyError(conflict, 'loan-1', 1n);
  assert.instance(mapped, ConcurrencyError);
  assert.is(mapped!.streamName, 'loan-1');
  assert.is(mapped!.expected, 1n);
  assert.is(mapped!.actual, 5n);

  const missing = new WrongExpectedVersionError(undefined, { streamName: 'loan-2', expected: 'stream_exists', current: 'no_stream' });
  assert.is(toConcurrencyError(missing, 'loan-2', 'stream_exists')!.actual, 'no_stream');
  // The port's expectation is kept, not the client's rendering of it.
  assert.is(toConcurrencyError(missing, 'loan-2', -1n)!.expected, -1n);

  assert.is(toConcurrencyError(new Error('other'), 'loan-1', 1n), undefined);
  assert.is(toConcurrencyError('not an error', 'loan-1', 1n), undefined);
});

test('StreamNotFoundError is recognised, other errors are not', () => {
  assert.ok(isStreamNotFound(new StreamNotFoundError(undefined, 'loan-1')));
  assert.not.ok(isStreamNotFound(new Error('loan-1 not found')));
  assert.not.ok(isStreamNotFound(undefined));
});

test('positions: START reads from the start, others pass through', () => {
  assert.is(toReadPosition(undefined), 'start');
  assert.is(toReadPosition(START), 'start');
  assert.equal(toReadPosition({ commit: 12n, prepare: 10n }), { commit: 12n, prepare: 10n });
});

test('event type regex matches exact names only, escaped', () => {
  const regex = new RegExp(eventTypeRegex(['LoanApplied', 'Score.Computed']));
  assert.ok(regex.test('LoanApplied'));
  assert.ok(regex.test('Score.Computed'));
  assert.not.ok(regex.test('LoanAppliedV2'));
  assert.not.ok(regex.test('XLoanApplied'));
  assert.not.ok(regex.test('ScoreXComputed'));
  const none = new RegExp(eventTypeRegex([]));
  assert.not.ok(none.test('LoanApplied'));
  assert.not.ok(none.test(''));
});

test('category regex matches the part before the first dash', () => {
  const regex = new RegExp(categoryRegex(['loan', 'credit.check']));
  assert.ok(regex.test('loan-1'));
  assert.ok(regex.test('loan-1-2'));
  assert.ok(regex.test('loan'));
  assert.ok(regex.test('credit.check-9'));
  assert.not.ok(regex.test('loans-1'));
  assert.not.ok(regex.test('xloan-1'));
  assert.not.ok(regex.test('creditXcheck-9'));
  assert.not.ok(new RegExp(categoryRegex([])).test('loan-1'));
});

test('subscription filters: server-side, with checkpoints, system events excluded', () => {
  const callback = () => {};
  const unfiltered = buildSubscriptionFilter(undefined, callback);
  assert.is(unfiltered.filterOn, 'eventType');
  assert.is((unfiltered as { regex: string }).regex, '^[^$].*');
  assert.is(unfiltered.checkpointInterval, 1);
  assert.is(unfiltered.maxSearchWindow, 1, 'a checkpoint after every event considered');
  assert.is(buildSubscriptionFilter(undefined, callback, 64).maxSearchWindow, 64);
  assert.is(unfiltered.checkpointReached, callback);

  const byType = buildSubscriptionFilter({ eventTypes: ['A', 'B'] });
  assert.is(byType.filterOn, 'eventType');
  assert.is((byType as { regex: string }).regex, '^(?:A|B)$');

  const byCategory = buildSubscriptionFilter({ categories: ['loan'] });
  assert.is(byCategory.filterOn, 'streamName');
  assert.is((byCategory as { regex: string }).regex, '^(?:loan)(?:-|$)');

  // Both: the server filters types, matchesFilter the categories.
  assert.is(buildSubscriptionFilter({ eventTypes: ['A'], categories: ['loan'] }).filterOn, 'eventType');
});

test('matchesFilter: exact port semantics, no system events', () => {
  assert.ok(matchesFilter('loan-1', 'LoanApplied', undefined));
  assert.not.ok(matchesFilter('loan-1', '$metadata', undefined));
  assert.not.ok(matchesFilter('$$loan-1', 'Anything', undefined));
  assert.not.ok(matchesFilter('$ce-loan', '$>', undefined));
  assert.ok(matchesFilter('loan-1', 'A', { eventTypes: ['A'] }));
  assert.not.ok(matchesFilter('loan-1', 'AB', { eventTypes: ['A'] }));
  assert.ok(matchesFilter('loan-1', 'A', { categories: ['loan'] }));
  assert.not.ok(matchesFilter('loans-1', 'A', { categories: ['loan'] }));
  assert.ok(matchesFilter('loan-1', 'A', { eventTypes: ['A'], categories: ['loan'] }));
  assert.not.ok(matchesFilter('party-1', 'A', { eventTypes: ['A'], categories: ['loan'] }));
  assert.not.ok(matchesFilter('loan-1', 'A', { eventTypes: [] }));
  assert.not.ok(matchesFilter('loan-1', 'A', { categories: [] }));
});

test('resolved events map to RecordedEvent', () => {
  const created = new Date('2024-05-01T10:00:00Z');
  const recorded = toRecordedEvent(resolvedEvent('loan-1', 'LoanApplied', 7n, { revision: 2n, created, metadata: { by: 'u1' } }))!;
  assert.equal(recorded, {
    id: recorded.id,
    streamName: 'loan-1',
    type: 'LoanApplied',
    data: { n: 7 },
    metadata: { by: 'u1' },
    revision: 2n,
    position: { commit: 7n, prepare: 7n },
    createdAt: created,
  });
  assert.equal(toRecordedEvent(resolvedEvent('loan-1', 'A', 1n))!.metadata, {});
  assert.is(toRecordedEvent(resolvedEvent('loan-1', '$metadata', 1n)), undefined);
  assert.is(toRecordedEvent({}), undefined);
  // What servers before 22.6 send for an event read from a stream: no usable position.
  const unpositioned = resolvedEvent('loan-1', 'A', 2n ** 64n - 1n);
  assert.throws(() => toRecordedEvent(unpositioned), /22\.6/);
});

test('events to append are JSON with the given id or a fresh UUID', () => {
  const given = toEventData({ type: 'A', data: { x: 1 }, metadata: { m: true }, id: '5f0c3b4e-8a7d-4c1e-9b1a-0c2d3e4f5a6b' });
  assert.equal(given, {
    id: '5f0c3b4e-8a7d-4c1e-9b1a-0c2d3e4f5a6b',
    contentType: 'application/json',
    type: 'A',
    data: { x: 1 },
    metadata: { m: true },
  });
  const generated = toEventData({ type: 'A', data: {} });
  assert.match(generated.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is.not(generated.id, toEventData({ type: 'A', data: {} }).id);
});

// --- the adapter over a fake client --------------------------------------------------------

function resolvedEvent(streamId: string, type: string, commit: bigint, extra: { revision?: bigint; created?: Date; metadata?: Record<string, unknown> } = {}): AllStreamResolvedEvent {
  return {
    event: {
      streamId,
      id: `00000000-0000-4000-8000-${commit.toString().padStart(12, '0')}`,
      isJson: true,
      revision: extra.revision ?? 0n,
      type,
      created: extra.created ?? new Date(0),
      data: { n: Number(commit) },
      metadata: extra.metadata,
      position: { commit, prepare: commit },
    },
    commitPosition: commit,
  };
}

/** $all in memory, read the way the server reads it: from a position, inclusively. */
class FakeClient {
  readonly reads: ClientReadAllOptions[] = [];
  readonly appends: { streamName: string; events: unknown[]; options: unknown }[] = [];
  appendError: unknown;
  grpc: FakeGrpcStream | undefined;
  subscribeOptions: SubscribeToAllOptions | undefined;

  constructor(readonly log: AllStreamResolvedEvent[] = []) {}

  readAll(options: ClientReadAllOptions = {}) {
    this.reads.push(options);
    const { fromPosition = 'start', maxCount = Number.MAX_SAFE_INTEGER, direction = 'forwards' } = options;
    const ordered = direction === 'forwards' ? [...this.log] : [...this.log].reverse();
    const from = fromPosition;
    const selected = ordered.filter((e) => {
      if (typeof from === 'string') return true;
      const c = comparePositions(e.event!.position, from);
      return direction === 'forwards' ? c >= 0 : c <= 0;
    });
    return Readable.from(selected.slice(0, Number(maxCount)));
  }

  readStream(streamName: string, options: { direction?: string; maxCount?: number | bigint } = {}) {
    const events = this.log.filter((e) => e.event!.streamId === streamName);
    if (events.length === 0) {
      const stream = new Readable({ objectMode: true, read() {} });
      process.nextTick(() => stream.destroy(new StreamNotFoundError(undefined, streamName)));
      return stream;
    }
    const ordered = options.direction === 'backwards' ? events.reverse() : events;
    return Readable.from(ordered.slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER)));
  }

  async appendToStream(streamName: string, events: unknown[], options: unknown) {
    this.appends.push({ streamName, events, options });
    if (this.appendError) throw this.appendError;
    return { success: true, nextExpectedRevision: 0n, position: { commit: 99n, prepare: 99n } };
  }

  subscribeToAll(options: SubscribeToAllOptions = {}, readableOptions = {}): AllStreamSubscription {
    this.subscribeOptions = options;
    this.grpc = new FakeGrpcStream();
    const grpc = this.grpc;
    return new ClientSubscription<AllStreamResolvedEvent>(async () => grpc as never, convertGrpcEvent as never, readableOptions, options.filter?.checkpointReached) as unknown as AllStreamSubscription;
  }

  async dispose() {}
}

/** Stands in for the gRPC response stream: written by the test, cancelled by unsubscribe(). */
class FakeGrpcStream extends PassThrough {
  cancelled = false;
  constructor() {
    super({ objectMode: true });
  }
  cancel() {
    this.cancelled = true;
  }
  sendEvent(streamName: string, type: string, commit: bigint) {
    const record = new ReadResp.ReadEvent.RecordedEvent();
    const id = new UUID();
    id.setString(`00000000-0000-4000-8000-${commit.toString().padStart(12, '0')}`);
    record.setId(id);
    const stream = new StreamIdentifier();
    stream.setStreamName(Buffer.from(streamName));
    record.setStreamIdentifier(stream);
    record.setStreamRevision('0');
    record.setCommitPosition(commit.toString());
    record.setPreparePosition(commit.toString());
    record.getMetadataMap().set('type', type);
    record.getMetadataMap().set('content-type', 'application/json');
    record.getMetadataMap().set('created', (BigInt(Date.UTC(2024, 0, 1)) * 10_000n).toString());
    record.setData(Buffer.from(JSON.stringify({ n: Number(commit) })));
    const event = new ReadResp.ReadEvent();
    event.setEvent(record);
    event.setCommitPosition(commit.toString());
    const response = new ReadResp();
    response.setEvent(event);
    this.write(response);
  }
  sendCheckpoint(commit: bigint) {
    const checkpoint = new ReadResp.Checkpoint();
    checkpoint.setCommitPosition(commit.toString());
    checkpoint.setPreparePosition(commit.toString());
    const response = new ReadResp();
    response.setCheckpoint(checkpoint);
    this.write(response);
  }
}

/** The client's subscription has taken the gRPC stream (listens to its errors): what a test sends now reaches it. */
function attached(client: FakeClient) {
  return eventually(() => (client.grpc?.listenerCount('error') ?? 0) > 0, { what: 'the subscription listening to its stream' });
}

function storeOver(client: FakeClient, options: ConstructorParameters<typeof EventStoreDbStore>[1] = {}) {
  return new EventStoreDbStore(client as unknown as EventStoreDBClient, options);
}

const pos = (n: bigint): Position => ({ commit: n, prepare: n });
function sampleLog(): AllStreamResolvedEvent[] {
  return [
    resolvedEvent('$stats-node', '$statsCollected', 1n),
    resolvedEvent('loan-1', 'LoanApplied', 2n),
    resolvedEvent('party-1', 'PartyAdded', 3n),
    resolvedEvent('$$loan-1', '$metadata', 4n),
    resolvedEvent('loan-2', 'LoanApplied', 5n),
    resolvedEvent('loan-1', 'LoanApproved', 6n),
    resolvedEvent('party-2', 'PartyAdded', 7n),
    resolvedEvent('party-3', 'PartyAdded', 8n),
  ];
}

const positions = (events: readonly RecordedEvent[]) => events.map((e) => e.position.commit);

test('readAll without a filter: system events skipped, pages joined, checkpoint at the end', async () => {
  const client = new FakeClient(sampleLog());
  const store = storeOver(client, { readPageSize: 3 });
  const all = await store.readAll();
  assert.equal(positions(all.events), [2n, 3n, 5n, 6n, 7n, 8n]);
  assert.equal(all.checkpoint, pos(8n));
  assert.ok(client.reads.length > 1, 'read in pages');

  const after = await store.readAll({ after: pos(5n) });
  assert.equal(positions(after.events), [6n, 7n, 8n]);

  const two = await store.readAll({ after: pos(2n), maxCount: 2 });
  assert.equal(positions(two.events), [3n, 5n]);
  assert.equal(two.checkpoint, pos(5n));
});

/**
 * The server's side of a filtered subscription over the fake's log: from the position asked,
 * each record the filter's regex accepts is sent, and a checkpoint after every record scanned
 * (maxSearchWindow 1); then the subscription stays open, as a live one does.
 */
function serveFiltered(client: FakeClient, writtenMeanwhile: AllStreamResolvedEvent[] = []): void {
  const subscribe = client.subscribeToAll.bind(client);
  client.subscribeToAll = (options = {}, readableOptions = {}) => {
    const subscription = subscribe(options, readableOptions);
    // Appended by others between the read's start and its subscription.
    client.log.push(...writtenMeanwhile.splice(0));
    const filter = options.filter as { filterOn: string; regex: string; maxSearchWindow?: number };
    assert.is(filter.maxSearchWindow, 1, 'a checkpoint reaches the head whatever the store setting');
    const accepts = new RegExp(filter.regex);
    const from = options.fromPosition;
    for (const { event } of client.log) {
      if (typeof from === 'object' && comparePositions(event!.position, from) < 0) continue;
      if (accepts.test(filter.filterOn === 'eventType' ? event!.type : event!.streamId)) {
        client.grpc!.sendEvent(event!.streamId, event!.type, event!.position.commit);
      }
      client.grpc!.sendCheckpoint(event!.position.commit);
    }
    return subscription;
  };
}

test('readAll with a filter: the server filters a subscription, which ends at the head or at maxCount', async () => {
  const client = new FakeClient(sampleLog());
  serveFiltered(client);
  const store = storeOver(client, { readPageSize: 2, checkpointWindow: 64 });
  const loans = await store.readAll({ filter: { categories: ['loan'] } });
  assert.equal(positions(loans.events), [2n, 5n, 6n]);
  assert.equal(loans.checkpoint, pos(8n));
  assert.ok(client.grpc!.cancelled, 'the subscription ended with the read');
  assert.is(client.reads.filter((r) => r.direction !== 'backwards').length, 0, 'no $all scanned on the client');

  const firstApplied = await store.readAll({ filter: { eventTypes: ['LoanApplied'] }, maxCount: 1 });
  assert.equal(positions(firstApplied.events), [2n]);
  assert.equal(firstApplied.checkpoint, pos(2n), 'not past events it did not return');

  const none = await store.readAll({ after: pos(6n), filter: { eventTypes: ['LoanApplied'] } });
  assert.equal(none.events, []);
  assert.equal(none.checkpoint, pos(8n), 'a filtered reader advances past what it skips');

  const atHead = await store.readAll({ after: pos(8n), filter: { eventTypes: ['LoanApplied'] } });
  assert.equal(atHead, { events: [], checkpoint: pos(8n) });

  const empty = await storeOver(new FakeClient([])).readAll({ after: pos(3n), filter: { categories: ['loan'] } });
  assert.equal(empty, { events: [], checkpoint: pos(3n) });
});

test('readAll with a filter stops at the head as it stood when the read began', async () => {
  const client = new FakeClient(sampleLog());
  // The subscription sees it; the read, which promises the log up to its checkpoint, stops before.
  serveFiltered(client, [resolvedEvent('loan-3', 'LoanApplied', 9n)]);
  const read = await storeOver(client).readAll({ filter: { eventTypes: ['LoanApplied'] } });
  assert.equal(positions(read.events), [2n, 5n]);
  assert.equal(read.checkpoint, pos(8n));
});

test('positionBefore reads $all backwards from the end and stops at the first record stored before the time', async () => {
  // One record a minute, system records included: the log is in time order.
  const minute = (n: bigint) => new Date(Date.UTC(2026, 10, 29, 12, Number(n)));
  const log = sampleLog().map((r) => resolvedEvent(r.event!.streamId, r.event!.type, r.event!.position.commit, { created: minute(r.event!.position.commit) }));
  const client = new FakeClient(log);
  const store = storeOver(client, { readPageSize: 2 });

  assert.equal(await store.positionBefore(minute(8n)), pos(7n), 'the record just before the first one at or after the time');
  assert.equal(client.reads.length, 1, 'a recent time reads one page, from the end');
  assert.equal([client.reads[0]!.fromPosition, client.reads[0]!.direction], ['end', 'backwards']);

  client.reads.length = 0;
  assert.equal(await store.positionBefore(minute(4n)), pos(3n), 'paged backwards past a system record');
  assert.ok(client.reads.every((read) => read.direction === 'backwards'));
  assert.equal(await store.positionBefore(new Date(Date.UTC(2027, 0, 1))), pos(8n), 'nothing that recent: the head');
  assert.equal(await store.positionBefore(minute(1n)), START, 'nothing that old: the start');
  assert.equal(await storeOver(new FakeClient([])).positionBefore(minute(1n)), START);
});

test('headPosition is the last record of $all, START when empty', async () => {
  assert.equal(await storeOver(new FakeClient(sampleLog())).headPosition(), pos(8n));
  assert.equal(await storeOver(new FakeClient([])).headPosition(), START);
});

test('readStream: a missing stream is empty; maxCount and system events respected', async () => {
  const store = storeOver(new FakeClient(sampleLog()));
  assert.equal(await store.readStream('loan-9'), []);
  assert.equal(positions(await store.readStream('loan-1')), [2n, 6n]);
  assert.equal(positions(await store.readStream('loan-1', { maxCount: 1 })), [2n]);
});

test('appendToStream maps the expectation and the conflict', async () => {
  const client = new FakeClient(sampleLog());
  const store = storeOver(client);
  const result = await store.appendToStream('loan-3', [{ type: 'LoanApplied', data: { a: 1 } }], { expectedRevision: 'no_stream' });
  assert.equal(result, { nextExpectedRevision: 0n, position: pos(99n) });
  assert.equal(client.appends[0]!.options, { expectedRevision: 'no_stream' });

  client.appendError = new WrongExpectedVersionError(undefined, { streamName: 'loan-1', expected: 0n, current: 1n });
  try {
    await store.appendToStream('loan-1', [{ type: 'LoanApproved', data: {} }], { expectedRevision: 0n });
    assert.unreachable('should conflict');
  } catch (error) {
    assert.instance(error, ConcurrencyError);
    assert.is((error as ConcurrencyError).actual, 1n);
  }
});

test('an empty append writes nothing but still checks the expectation', async () => {
  const client = new FakeClient(sampleLog());
  const store = storeOver(client);
  assert.equal(await store.appendToStream('loan-1', [], { expectedRevision: 0n }), { nextExpectedRevision: 0n, position: START });
  assert.equal(await store.appendToStream('loan-9', [], { expectedRevision: 'no_stream' }), { nextExpectedRevision: -1n, position: START });
  try {
    await store.appendToStream('loan-9', [], { expectedRevision: 'stream_exists' });
    assert.unreachable('should conflict');
  } catch (error) {
    assert.instance(error, ConcurrencyError);
  }
  assert.is(client.appends.length, 0);
});

test('subscription: events in order, checkpoints never ahead of undelivered events', async () => {
  const client = new FakeClient();
  const store = storeOver(client);
  const calls: { events: bigint[]; checkpoint: bigint }[] = [];
  let inFlight = 0;
  const subscription = store.subscribeToAll(
    async (events, checkpoint) => {
      assert.is(++inFlight, 1, 'one handler call at a time');
      calls.push({ events: positions(events), checkpoint: checkpoint.commit });
      await sleep(2); // fixed: slow enough that later responses queue up behind this batch
      inFlight--;
    },
    { filter: { categories: ['loan'] }, maxCount: 3 },
  );
  assert.is(client.subscribeOptions!.filter!.filterOn, 'streamName');
  assert.is(client.subscribeOptions!.fromPosition, 'start');

  const grpc = client.grpc!;
  for (let n = 1n; n <= 10n; n++) grpc.sendEvent(n % 2n === 0n ? 'loan-1' : 'party-1', 'E', n);
  grpc.sendCheckpoint(12n); // scanned past two events the server filtered out
  grpc.sendEvent('loan-2', 'E', 14n);
  grpc.sendCheckpoint(20n);
  await eventually(() => calls.at(-1)?.checkpoint === 20n, { what: 'the last checkpoint' });

  const delivered = calls.flatMap((c) => c.events);
  assert.equal(delivered, [2n, 4n, 6n, 8n, 10n, 14n], 'matching events, once, in order');
  let previous = 0n;
  for (const call of calls) {
    assert.ok(call.checkpoint > previous, 'checkpoints advance');
    const seen = calls.slice(0, calls.indexOf(call) + 1).flatMap((c) => c.events);
    for (const p of delivered) if (p <= call.checkpoint) assert.ok(seen.includes(p), `event ${p} delivered before checkpoint ${call.checkpoint}`);
    for (const p of call.events) assert.ok(p <= call.checkpoint, 'checkpoint not behind its events');
    previous = call.checkpoint;
  }
  assert.equal(calls.at(-1), { events: [], checkpoint: 20n }, 'a checkpoint alone reaches the handler');

  await subscription.stop();
  assert.ok(grpc.cancelled, 'unsubscribed');
});

test('subscription resumes after a position and skips what it already delivered', async () => {
  const client = new FakeClient();
  const store = storeOver(client);
  const seen: bigint[] = [];
  const subscription = store.subscribeToAll(async (events) => void seen.push(...positions(events)), { after: pos(5n) });
  assert.equal(client.subscribeOptions!.fromPosition, pos(5n) as ClientPosition);
  const grpc = client.grpc!;
  grpc.sendEvent('loan-1', 'A', 5n); // at `after` itself: not again
  grpc.sendEvent('loan-1', 'B', 6n);
  grpc.sendEvent('loan-1', 'B', 6n); // a duplicate
  grpc.sendCheckpoint(6n); // not an advance: no call
  grpc.sendEvent('$$loan-1', '$metadata', 7n);
  grpc.sendEvent('loan-1', 'C', 8n);
  await eventually(() => seen.includes(8n), { what: 'event 8' });
  assert.equal(seen, [6n, 8n]);
  await subscription.stop();
});

test('a checkpoint equal to a later event does not hide that event', async () => {
  // Some servers (KurrentDB #4970) report the end of the log as a checkpoint.
  const client = new FakeClient();
  const store = storeOver(client);
  const calls: { events: bigint[]; checkpoint: bigint }[] = [];
  const subscription = store.subscribeToAll(async (events, checkpoint) => {
    calls.push({ events: positions(events), checkpoint: checkpoint.commit });
  });
  client.grpc!.sendCheckpoint(9n);
  await eventually(() => calls.length === 1, { what: 'the checkpoint' });
  client.grpc!.sendEvent('loan-1', 'A', 9n);
  await eventually(() => calls.length === 2, { what: 'the event' });
  assert.equal(calls, [
    { events: [], checkpoint: 9n },
    { events: [9n], checkpoint: 9n },
  ]);
  await subscription.stop();
});

test('stop() lets the batch in flight finish, then nothing more is delivered', async () => {
  const client = new FakeClient();
  const store = storeOver(client);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const seen: bigint[] = [];
  const subscription = store.subscribeToAll(async (events) => {
    seen.push(...positions(events));
    await gate;
  });
  client.grpc!.sendEvent('loan-1', 'A', 1n);
  await eventually(() => seen.length === 1, { what: 'the first event' });
  client.grpc!.sendEvent('loan-1', 'A', 2n);
  let stopped = false;
  const stopping = subscription.stop().then(() => (stopped = true));
  // stop() has cancelled the stream and now waits only for the handler in flight.
  await eventually(() => client.grpc!.cancelled, { what: 'the stream cancelled' });
  assert.not.ok(stopped, 'waits for the handler');
  release();
  await stopping;
  await subscription.done;
  assert.equal(seen, [1n]);
  assert.ok(client.grpc!.cancelled);
});

test('stop() called from inside the handler ends after that batch', async () => {
  const client = new FakeClient();
  const seen: bigint[] = [];
  const subscription = storeOver(client).subscribeToAll(
    async (events) => {
      seen.push(...positions(events));
      void subscription.stop();
    },
    { maxCount: 1 },
  );
  for (let n = 1n; n <= 5n; n++) client.grpc!.sendEvent('loan-1', 'A', n);
  await subscription.done;
  assert.equal(seen, [1n]);
});

test('a stopped idle subscription ends without reporting an error', async () => {
  const client = new FakeClient();
  const errors: unknown[] = [];
  const subscription = storeOver(client).subscribeToAll(async () => {}, { onError: (e) => errors.push(e) });
  await attached(client);
  await subscription.stop();
  assert.equal(errors, []);
});

test('a handler error goes to onError and ends the subscription', async () => {
  const client = new FakeClient();
  const errors: unknown[] = [];
  const subscription = storeOver(client).subscribeToAll(
    async () => {
      throw new Error('projection failed');
    },
    { onError: (e) => errors.push(e) },
  );
  client.grpc!.sendEvent('loan-1', 'A', 1n);
  await subscription.done;
  assert.is((errors[0] as Error).message, 'projection failed');
  assert.ok(client.grpc!.cancelled);
});

test('a stream error goes to onError and ends the subscription', async () => {
  const client = new FakeClient();
  const errors: unknown[] = [];
  const subscription = storeOver(client).subscribeToAll(async () => {}, { onError: (e) => errors.push(e) });
  await attached(client);
  client.grpc!.emit('error', new Error('connection lost'));
  await subscription.done;
  assert.is(errors.length, 1);
  assert.match(String((errors[0] as Error).message), /connection lost/);
});

test('close() stops subscriptions', async () => {
  const client = new FakeClient();
  const store = storeOver(client);
  const subscription = store.subscribeToAll(async () => {});
  await store.close();
  await subscription.done;
  assert.ok(client.grpc!.cancelled);
});

test.run();
