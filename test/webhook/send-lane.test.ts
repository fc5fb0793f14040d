import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AttemptOutcome } from '../../domain/webhook/retry-policy.ts';
import { SendLane, type LaneItem, type LaneResult } from '../../application/webhook/send-lane.ts';
import { openDeliveryLane, type Attempt } from '../../application/webhook/sender.ts';
import { startReceiver } from '../support/webhook-receiver.ts';
import { receiverAccepts } from '../support/webhook-verifier.ts';
import { eventually } from '../support/wait.ts';

const test = suite('webhook: the send lane');

const OK: AttemptOutcome = { ok: true, statusCode: 204, failure: null, error: null, durationMs: 1 };

function item(id: string, organization: string, subscription: string, startBy = Date.now() + 60_000, attempt?: Partial<Attempt>): LaneItem {
  return {
    id,
    organization_id: organization,
    subscription_id: subscription,
    startBy,
    attempt: { url: 'http://127.0.0.1:9/none', body: '{}', headers: {}, timeoutMs: 1000, allowPrivateNetworks: true, ...attempt },
  };
}

/** A lane whose attempts wait until the test answers them. */
function heldLane(concurrency: number) {
  const started: string[] = [];
  const answers = new Map<string, () => void>();
  const results: LaneResult[][] = [];
  const lane = new SendLane(
    concurrency,
    (attempt) =>
      new Promise((resolve) => {
        const id = attempt.headers['X-Id']!;
        started.push(id);
        answers.set(id, () => resolve(OK));
      }),
    (batch) => void results.push(batch),
  );
  const add = (...items: LaneItem[]) => lane.add(items.map((i) => ({ ...i, attempt: { ...i.attempt, headers: { 'X-Id': i.id } } })));
  return { lane, add, started, answers, results };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('an organization starts up to its share; another organization still gets its own at once', () => {
  const { add, started } = heldLane(4);
  add(item('a1', 'A', 's'), item('a2', 'A', 's'), item('a3', 'A', 's'), item('b1', 'B', 't'));
  assert.equal(started, ['a1', 'a2', 'b1'], 'A has not answered yet, so it does not borrow beyond its share of 2');
});

test('a freed slot starts the next item at once, and results come back in one batch per turn', async () => {
  const { add, started, answers, results } = heldLane(2);
  add(item('a1', 'A', 's'), item('b1', 'B', 't'), item('a2', 'A', 's'));
  assert.equal(started, ['a1', 'b1']);
  answers.get('a1')!();
  answers.get('b1')!();
  await tick();
  await tick();
  assert.equal(started, ['a1', 'b1', 'a2']);
  assert.equal(
    results.map((batch) => batch.map((r) => r.id)),
    [['a1', 'b1']],
  );
});

test('an item whose lease would not cover its attempt is given back unsent', async () => {
  const { add, started, results } = heldLane(2);
  add(item('late', 'A', 's', Date.now() - 1), item('fine', 'A', 's'));
  await tick();
  assert.equal(started, ['fine']);
  assert.equal(
    results.flat().map((r) => [r.id, r.outcome]),
    [['late', null]],
  );
});

test('drop takes back the waiting items of a changed subscription, not the started ones', () => {
  const { lane, add, started } = heldLane(2);
  add(item('a1', 'A', 's'), item('b1', 'B', 's'), item('a2', 'A', 's'), item('a3', 'A', 'other'));
  assert.equal(started, ['a1', 'b1']);
  assert.equal(lane.drop(['s']), ['a2']);
});

test('on a thread of its own: signed POSTs to a real receiver, and a thread that dies gives its attempts back as failures and is replaced', async () => {
  const receiver = await startReceiver((_request, index) => (index === 0 ? { status: 204 } : 'hang'));
  const results: LaneResult[] = [];
  const errors: string[] = [];
  const lane = openDeliveryLane({ concurrency: 4, inThread: true, log: { error: (_fields, message) => void errors.push(message) } }, (batch) => void results.push(...batch));
  try {
    const signing = { deliveryId: 'd1', event: 'report.finished', secret: 'whsec_test', previousSecret: null };
    lane.add([item('d1', 'A', 's', undefined, { url: receiver.url, body: '{"n":1}', timeoutMs: 5000, signing })]);
    await eventually(async () => results.length === 1, { timeoutMs: 10_000, what: 'the first result' });
    assert.is(results[0]!.outcome?.statusCode, 204);
    const [request] = receiver.received;
    assert.ok(receiverAccepts('whsec_test', request!.headers, request!.body), 'signed in the thread, as the receiver checks it');

    lane.add([item('d2', 'A', 's', undefined, { url: receiver.url, body: '{"n":2}', timeoutMs: 30_000 })]);
    await receiver.waitFor(2);
    await (lane as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    await eventually(async () => results.length === 2, { timeoutMs: 10_000, what: 'the lost attempt' });
    assert.equal([results[1]!.id, results[1]!.outcome?.ok, results[1]!.outcome?.failure], ['d2', false, 'network']);
    assert.ok(errors.some((e) => e.includes('starting another')));

    lane.add([item('d3', 'A', 's', undefined, { url: receiver.url, body: '{"n":3}', timeoutMs: 200 })]);
    await eventually(async () => results.length === 3, { timeoutMs: 10_000, what: 'an attempt on the new thread' });
    assert.is(results[2]!.outcome?.failure, 'timeout');
  } finally {
    await lane.close();
    await receiver.close();
  }
});

test('threads that keep dying at start leave the lane on the main thread, still delivering', async () => {
  const receiver = await startReceiver();
  const results: LaneResult[] = [];
  const errors: string[] = [];
  const lane = openDeliveryLane({ concurrency: 4, inThread: true, log: { error: (_fields, message) => void errors.push(message) } }, (batch) => void results.push(...batch));
  const thread = lane as unknown as { worker: { terminate(): Promise<number> } };
  try {
    for (let i = 0; i < 3; i++) await thread.worker.terminate();
    await eventually(async () => errors.some((e) => e.includes('now run on the main thread')), { timeoutMs: 10_000, what: 'the fallback' });
    lane.add([item('d1', 'A', 's', undefined, { url: receiver.url, body: '{"n":1}', timeoutMs: 5000 })]);
    await eventually(async () => results.length === 1, { timeoutMs: 10_000, what: 'a result from the main thread' });
    assert.is(results[0]!.outcome?.statusCode, 200);
  } finally {
    await lane.close();
    await receiver.close();
  }
});

test.run();
