import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectionDecider, SANDBOX_OPINION_HELD } from '../../domain/collection/decider.ts';
import { CollectionMessages } from '../../domain/collection/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { given } from '../support/decider.ts';
import { assess, cmd, create, definition, history, item, opinion, recipient, stateOf, submit, SYSTEM } from './fixtures.ts';

const test = suite('collection decider: items');
const one = (extra: Parameters<typeof definition>[0] = {}) => definition({ items: [item('i1')], recipients: [recipient('p1', ['i1'])], ...extra });
const types = (events: { type: string }[]) => events.map((e) => e.type);

test('submit: ITEM_SUBMITTED by the recipient; the item SUBMITTED, the collection and the recipient IN_PROGRESS; the same file twice is one', () => {
  const events = given(collectionDecider, history(create(true)))
    .when(submit('i1', 'p1', 'd1'))
    .decided();
  assert.equal(
    events.map((e) => [e.type, e.data.itemId, e.data.recipientId, e.data.actorType, e.data.payload]),
    [['ItemSubmitted', 'i1', 'p1', 'RECIPIENT', { registryDocumentId: 'd1' }]],
  );
  const state = stateOf(history(create(true), submit('i1', 'p1', 'd1')));
  assert.equal([state.status, state.items[0]!.status, state.recipients[0]!.status], ['IN_PROGRESS', 'SUBMITTED', 'IN_PROGRESS']);
  given(collectionDecider, history(create(true), submit('i1', 'p1', 'd1')))
    .when(submit('i1', 'p1', 'd1'))
    .then([]);
});

test("submit refusals: a draft, another recipient's item, an unknown item, a resolved item, an item not answered by a file, a closed collection", () => {
  given(collectionDecider, history(create(false)))
    .when(submit('i1', 'p1', 'd1'))
    .thenError('conflict', CollectionMessages.notSent);
  given(collectionDecider, history(create(true)))
    .when(submit('i2', 'p1', 'd1'))
    .thenError('not_found', CollectionMessages.itemNotOfRecipient);
  given(collectionDecider, history(create(true)))
    .when(submit('zz', 'p1', 'd1'))
    .thenError('not_found', CollectionMessages.itemNotFound);
  const waived = history(create(true), cmd({ type: 'WaiveItem', itemId: 'i1', reason: null }));
  given(collectionDecider, waived)
    .when(submit('i1', 'p1', 'd1'))
    .thenError('conflict', CollectionMessages.itemResolved);
  const consent = definition({
    items: [item('i1', { kind: 'CONSENT', expectedType: null, config: { consent: { type: 'lgpd', version: 1, text: 'Autorizo.', hash: 'a'.repeat(64) } } })],
    recipients: [recipient('p1', ['i1'])],
  });
  given(collectionDecider, history(create(true, consent)))
    .when(submit('i1', 'p1', 'd1'))
    .thenError('invalid', CollectionMessages.itemNotAFile);
  given(collectionDecider, history(create(true), cmd({ type: 'CancelCollection', reason: null })))
    .when(submit('i1', 'p1', 'd1'))
    .thenError('conflict', Messages.collectionClosed);
});

test('processing: a submitted item moves to PROCESSING once', () => {
  const start = cmd({ type: 'StartItemProcessing', itemId: 'i1', registryDocumentId: 'd1' }, { actor: SYSTEM });
  const submitted = history(create(true), submit('i1', 'p1', 'd1'));
  assert.equal(types(given(collectionDecider, submitted).when(start).decided()), ['ItemProcessingStarted']);
  assert.is(stateOf(history(create(true), submit('i1', 'p1', 'd1'), start)).items[0]!.status, 'PROCESSING');
  given(collectionDecider, history(create(true), submit('i1', 'p1', 'd1'), start))
    .when(start)
    .then([]);
});

test('AUTOMATIC: VALIDO validates and the last resolved item completes the collection; the recipient COMPLETED', () => {
  const past = history(create(true, one()), submit('i1', 'p1', 'd1'));
  const events = given(collectionDecider, past)
    .when(assess('i1', 'd1', 'VALIDO'))
    .decided();
  assert.equal(types(events), ['ItemAssessed', 'CollectionCompleted']);
  assert.equal(events[0]!.data.payload, { ...opinion('d1', 'VALIDO'), itemStatus: 'VALIDATED', decidedByOperator: false });
  assert.is(events[0]!.data.recipientId, 'p1');
  const state = stateOf([...past, ...events]);
  assert.equal([state.status, state.items[0]!.status, state.recipients[0]!.status], ['COMPLETED', 'VALIDATED', 'COMPLETED']);
  assert.equal(
    state.items[0]!.files.map((f) => f.opinion?.verdict),
    ['VALIDO'],
  );
  given(collectionDecider, [...past, ...events])
    .when(assess('i1', 'd1', 'VALIDO'))
    .then([]);
});

test('AUTOMATIC: INVALIDO rejects with a resend request and a new file can come; INCONCLUSIVO and ANALISE_MANUAL go to MANUAL_REVIEW', () => {
  const past = history(create(true), submit('i1', 'p1', 'd1'));
  const rejected = given(collectionDecider, past)
    .when(assess('i1', 'd1', 'INVALIDO'))
    .decided();
  assert.equal(types(rejected), ['ItemAssessed', 'ItemRejected']);
  assert.equal(rejected[1]!.data.payload, { registryDocumentId: 'd1', reason: 'Documento vencido.', resendRequested: true });
  const after = [...past, ...rejected];
  assert.equal([stateOf(after).items[0]!.status, stateOf(after).items[0]!.resendReason], ['REJECTED', 'Documento vencido.']);
  assert.equal(
    types(
      given(collectionDecider, after)
        .when(submit('i1', 'p1', 'd2'))
        .decided(),
    ),
    ['ItemSubmitted'],
  );
  for (const verdict of ['INCONCLUSIVO', 'ANALISE_MANUAL'] as const) {
    const events = given(collectionDecider, past)
      .when(assess('i1', 'd1', verdict))
      .decided();
    assert.equal(
      events.map((e) => (e.data.payload as { itemStatus: string }).itemStatus),
      ['MANUAL_REVIEW'],
    );
  }
});

test('AUTOMATIC outside sandbox mode: a sandbox opinion (keyword analyser) resolves nothing, the item waits for the operator with the reason; in sandbox mode it resolves', () => {
  const past = history(create(true, one()), submit('i1', 'p1', 'd1'));
  for (const verdict of ['VALIDO', 'INVALIDO'] as const) {
    const held = given(collectionDecider, past)
      .when(assess('i1', 'd1', verdict, 1, 'production', { sandbox: true }))
      .decided();
    assert.equal(
      held.map((e) => e.type),
      ['ItemAssessed'],
    );
    assert.equal(held[0]!.data.payload, { ...opinion('d1', verdict), sandbox: true, itemStatus: 'AWAITING_OPERATOR', decidedByOperator: false, heldForOperator: SANDBOX_OPINION_HELD });
    assert.equal([stateOf([...past, ...held]).status, stateOf([...past, ...held]).items[0]!.status], ['IN_PROGRESS', 'AWAITING_OPERATOR']);
  }
  // A real reading in production, and the sandbox rules in sandbox mode, resolve as before.
  assert.equal(
    types(
      given(collectionDecider, past)
        .when(assess('i1', 'd1', 'VALIDO', 1, 'production'))
        .decided(),
    ),
    ['ItemAssessed', 'CollectionCompleted'],
  );
  assert.equal(
    types(
      given(collectionDecider, past)
        .when(assess('i1', 'd1', 'VALIDO', 1, 'sandbox', { sandbox: true }))
        .decided(),
    ),
    ['ItemAssessed', 'CollectionCompleted'],
  );
});

test('a technical failure leaves the item AWAITING_OPERATOR (ITEM_AWAITING_OPERATOR, no opinion)', () => {
  const past = history(create(true), submit('i1', 'p1', 'd1'));
  const events = given(collectionDecider, past)
    .when(assess('i1', 'd1', null))
    .decided();
  assert.equal(
    events.map((e) => [e.type, e.data.action]),
    [['ItemAwaitingOperator', 'ITEM_AWAITING_OPERATOR']],
  );
  assert.is(stateOf([...past, ...events]).items[0]!.status, 'AWAITING_OPERATOR');
});

test('REVIEW: the opinion only informs (AWAITING_OPERATOR); the operator approves and the collection completes', () => {
  const past = history(create(true, one({ mode: 'REVIEW' })), submit('i1', 'p1', 'd1'));
  const assessed = given(collectionDecider, past)
    .when(assess('i1', 'd1', 'VALIDO'))
    .decided();
  assert.equal(
    assessed.map((e) => (e.data.payload as { itemStatus: string }).itemStatus),
    ['AWAITING_OPERATOR'],
  );
  const review = cmd({ type: 'ReviewItem', itemId: 'i1', decision: 'APPROVE', reason: null });
  const reviewed = given(collectionDecider, [...past, ...assessed])
    .when(review)
    .decided();
  assert.equal(
    reviewed.map((e) => [e.type, e.data.payload]),
    [
      ['ItemReviewed', { decision: 'APPROVED', reason: null }],
      ['CollectionCompleted', { itemsTotal: 1, itemsResolved: 1 }],
    ],
  );
  assert.is(stateOf([...past, ...assessed, ...reviewed]).items[0]!.status, 'VALIDATED');
});

test('review reject: ITEM_REVIEWED then ITEM_REJECTED with the resend request; a reason is required', () => {
  const past = history(create(true, one({ mode: 'REVIEW' })), submit('i1', 'p1', 'd1'), assess('i1', 'd1', 'VALIDO'));
  const reject = cmd({ type: 'ReviewItem', itemId: 'i1', decision: 'REJECT', reason: 'Ilegível.' });
  const events = given(collectionDecider, past).when(reject).decided();
  assert.equal(
    events.map((e) => [e.type, e.data.payload]),
    [
      ['ItemReviewed', { decision: 'REJECTED', reason: 'Ilegível.' }],
      ['ItemRejected', { registryDocumentId: 'd1', reason: 'Ilegível.', resendRequested: true }],
    ],
  );
  assert.is(stateOf([...past, ...events]).items[0]!.status, 'REJECTED');
  given(collectionDecider, past)
    .when({ ...reject, reason: null } as typeof reject)
    .thenError('invalid', CollectionMessages.rejectReasonRequired);
});

test('review refusals: an item not waiting for the operator, a resolved item, a closed collection', () => {
  const review = cmd({ type: 'ReviewItem', itemId: 'i1', decision: 'APPROVE', reason: null });
  given(collectionDecider, history(create(true)))
    .when(review)
    .thenError('conflict', CollectionMessages.itemNotAwaitingOperator);
  given(collectionDecider, history(create(true, one()), submit('i1', 'p1', 'd1'), assess('i1', 'd1', 'VALIDO')))
    .when(review)
    .thenError('conflict', Messages.collectionClosed);
  given(collectionDecider, history(create(true), submit('i1', 'p1', 'd1'), assess('i1', 'd1', 'VALIDO')))
    .when(review)
    .thenError('conflict', CollectionMessages.itemResolved);
});

test('an operator decision on the document resolves even in REVIEW mode', () => {
  const past = history(create(true, one({ mode: 'REVIEW' })), submit('i1', 'p1', 'd1'), assess('i1', 'd1', 'INCONCLUSIVO'));
  const decided = given(collectionDecider, past)
    .when(cmd({ type: 'DecideItemDocument', itemId: 'i1', opinion: { ...opinion('d1', 'VALIDO'), verdict: 'VALIDO' } }))
    .decided();
  assert.equal(types(decided), ['ItemAssessed', 'CollectionCompleted']);
  assert.is((decided[0]!.data.payload as { decidedByOperator: boolean }).decidedByOperator, true);
});

test('waive: ITEM_WAIVED resolves the item; waiving the last completes; a resolved item is refused', () => {
  const waive = (itemId: string) => cmd({ type: 'WaiveItem', itemId, reason: 'Dispensado.' });
  const first = given(collectionDecider, history(create(true)))
    .when(waive('i1'))
    .decided();
  assert.equal(
    first.map((e) => [e.type, e.data.itemId, e.data.payload]),
    [['ItemWaived', 'i1', { reason: 'Dispensado.' }]],
  );
  assert.equal(
    types(
      given(collectionDecider, history(create(true), waive('i1')))
        .when(waive('i2'))
        .decided(),
    ),
    ['ItemWaived', 'CollectionCompleted'],
  );
  given(collectionDecider, history(create(true), waive('i1')))
    .when(waive('i1'))
    .thenError('conflict', CollectionMessages.itemResolved);
  assert.equal(
    stateOf(history(create(true), waive('i1'), waive('i2'))).recipients.map((r) => r.status),
    ['NO_ITEMS', 'NO_ITEMS'],
  );
  assert.equal(
    types(
      given(collectionDecider, history(create(false)))
        .when(waive('i1'))
        .decided(),
    ),
    ['ItemWaived'],
  );
});

test('late outcomes: an opinion on a closed collection changes nothing; on an item resolved meanwhile it only records the opinion', () => {
  const canceled = history(create(true), submit('i1', 'p1', 'd1'), cmd({ type: 'CancelCollection', reason: null }));
  given(collectionDecider, canceled)
    .when(assess('i1', 'd1', 'VALIDO'))
    .then([]);
  const waived = history(create(true), submit('i1', 'p1', 'd1'), cmd({ type: 'WaiveItem', itemId: 'i1', reason: null }));
  const events = given(collectionDecider, waived)
    .when(assess('i1', 'd1', 'INVALIDO'))
    .decided();
  assert.equal(
    events.map((e) => [e.type, (e.data.payload as { itemStatus: string }).itemStatus]),
    [['ItemAssessed', 'WAIVED']],
  );
});

test.run();
