import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectionDecider } from '../../domain/collection/decider.ts';
import { CollectionMessages } from '../../domain/collection/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { given } from '../support/decider.ts';
import { AT, cmd, create, definition, history, item, ORG, OTHER_ORG, recipient, stateOf, SYSTEM, submit, assess } from './fixtures.ts';

const test = suite('collection decider: collection and recipients');
const LATER = '2026-12-10T12:00:00.000Z';

test('create as a draft: one COLLECTION_CREATED entry without personal data, the definition beside it', () => {
  const [created, ...rest] = given(collectionDecider).when(create(false)).decided();
  assert.equal(rest, []);
  assert.is(created!.type, 'CollectionCreated');
  assert.equal(created!.data.payload, {
    registryId: 'r00000000000000000000001',
    template: null,
    templateVersion: null,
    items: 2,
    recipients: 2,
    mode: 'AUTOMATIC',
    channel: 'EMAIL',
  });
  assert.is(created!.data.action, 'COLLECTION_CREATED');
  assert.is(created!.data.organizationId, ORG);
  assert.equal((created!.data as { definition?: unknown }).definition, definition());
  assert.not.match(JSON.stringify(created!.data.payload), /Empresa|example\.com/);
  const state = stateOf([created!]);
  assert.is(state.status, 'DRAFT');
  assert.equal(
    state.items.map((i) => i.status),
    ['PENDING', 'PENDING'],
  );
  assert.equal(
    state.recipients.map((r) => r.status),
    ['PENDING', 'PENDING'],
  );
});

test('create and send at once: CREATED then SENT with the deadline', () => {
  const events = given(collectionDecider).when(create(true)).decided();
  assert.equal(
    events.map((e) => e.type),
    ['CollectionCreated', 'CollectionSent'],
  );
  assert.equal(events[1]!.data.payload, { expiresAt: '2026-12-03T12:00:00.000Z' });
  assert.is(stateOf(events).status, 'SENT');
});

test('create refusals: no items, no recipients, a recipient of an unknown item, no contact, repeated keys, an existing id', () => {
  const refuse = (def: ReturnType<typeof definition>, message: string) => given(collectionDecider).when(create(false, def)).thenError('invalid', message);
  refuse(definition({ items: [] }), CollectionMessages.noItems);
  refuse(definition({ recipients: [] }), CollectionMessages.noRecipients);
  refuse(definition({ recipients: [recipient('p1', ['nope'])] }), CollectionMessages.unknownItemKey);
  refuse(definition({ recipients: [{ ...recipient('p1', ['i1']), email: null }] }), CollectionMessages.recipientWithoutContact);
  refuse(definition({ items: [item('i1'), item('i2', { key: 'key-i1' })] }), CollectionMessages.duplicateItemKey);
  given(collectionDecider, history(create(false)))
    .when(create(false))
    .thenError('conflict', Messages.alreadyExists);
});

test('an item already on file is born ALREADY_ON_FILE; all on file completes on sending; a recipient without items is NO_ITEMS', () => {
  const reuse = { decision: 'APPROVED' as const, registryDocumentId: 'd1', validUntil: null };
  const def = definition({ items: [item('i1', { reuse }), item('i2', { reuse })], recipients: [recipient('p1', ['i1', 'i2']), recipient('p2', [])] });
  const draft = history(create(false, def));
  assert.equal(
    stateOf(draft).items.map((i) => [i.status, i.reuse?.decision]),
    [
      ['ALREADY_ON_FILE', 'APPROVED'],
      ['ALREADY_ON_FILE', 'APPROVED'],
    ],
  );
  assert.equal(
    stateOf(draft).recipients.map((r) => r.status),
    ['NO_ITEMS', 'NO_ITEMS'],
  );
  const sent = given(collectionDecider, draft)
    .when(cmd({ type: 'SendCollection' }))
    .decided();
  assert.equal(
    sent.map((e) => e.type),
    ['CollectionSent', 'CollectionCompleted'],
  );
  assert.equal(sent[1]!.data.payload, { itemsTotal: 2, itemsResolved: 2 });
});

test('send: only a draft; a closed or unknown collection is refused; another tenant sees nothing', () => {
  const send = cmd({ type: 'SendCollection' });
  given(collectionDecider, history(create(true)))
    .when(send)
    .thenError('conflict', CollectionMessages.alreadySent);
  given(collectionDecider, history(create(false), cmd({ type: 'CancelCollection', reason: null })))
    .when(send)
    .thenError('conflict', Messages.collectionClosed);
  given(collectionDecider).when(send).thenError('not_found', Messages.collectionNotFound);
  given(collectionDecider, history(create(false)))
    .when({ ...send, organizationId: OTHER_ORG })
    .thenError('not_found', Messages.collectionNotFound);
});

test('cancel: a draft or a sent collection moves to CANCELED with the reason; a closed one is 409', () => {
  const cancel = cmd({ type: 'CancelCollection', reason: 'Cliente desistiu.' });
  for (const send of [false, true]) {
    const events = given(collectionDecider, history(create(send)))
      .when(cancel)
      .decided();
    assert.equal(
      events.map((e) => [e.type, e.data.payload]),
      [['CollectionCanceled', { reason: 'Cliente desistiu.' }]],
    );
    const state = stateOf([...history(create(send)), ...events]);
    assert.is(state.status, 'CANCELED');
    assert.is(state.canceledAt, AT);
  }
  given(collectionDecider, history(create(true), cancel))
    .when(cancel)
    .thenError('conflict', Messages.collectionClosed);
  const completed = history(create(true, definition({ items: [item('i1')], recipients: [recipient('p1', ['i1'])] })), submit('i1', 'p1', 'd1'), assess('i1', 'd1', 'VALIDO'));
  assert.is(stateOf(completed).status, 'COMPLETED');
  given(collectionDecider, completed).when(cancel).thenError('conflict', Messages.collectionClosed);
  given(collectionDecider, history(create(true)))
    .when({ ...cancel, organizationId: OTHER_ORG })
    .thenError('not_found', Messages.collectionNotFound);
});

test('expire: past the deadline with an item waiting on a recipient; not before, not when only the operator is awaited', () => {
  const expire = cmd({ type: 'ExpireCollection' }, { actor: SYSTEM, at: LATER });
  const sent = history(create(true));
  const events = given(collectionDecider, sent).when(expire).decided();
  assert.equal(
    events.map((e) => [e.type, e.data.payload]),
    [['CollectionExpired', { expiredItemIds: ['i1', 'i2'] }]],
  );
  const state = stateOf([...sent, ...events]);
  assert.is(state.status, 'EXPIRED');
  assert.equal(
    state.items.map((i) => i.status),
    ['EXPIRED', 'EXPIRED'],
  );
  given(collectionDecider, sent)
    .when({ ...expire, at: AT })
    .then([]);
  given(collectionDecider, history(create(false)))
    .when(expire)
    .then([]);
  given(collectionDecider, [...sent, ...events])
    .when(expire)
    .then([]);
  const def = definition({ items: [item('i1')], recipients: [recipient('p1', ['i1'])] });
  const withOperator = history(create(true, def), submit('i1', 'p1', 'd1'), assess('i1', 'd1', 'INCONCLUSIVO'));
  given(collectionDecider, withOperator).when(expire).then([]);
});

test('add a recipient: RECIPIENT_ADDED with item ids only; refusals', () => {
  const add = (r = recipient('p3', ['i1', 'i2'])) => cmd({ type: 'AddRecipient', recipient: r });
  const events = given(collectionDecider, history(create(true)))
    .when(add())
    .decided();
  assert.equal(
    events.map((e) => [e.type, e.data.recipientId, e.data.payload]),
    [['RecipientAdded', 'p3', { itemIds: ['i1', 'i2'] }]],
  );
  assert.is(stateOf([...history(create(true)), ...events]).recipients[2]!.status, 'PENDING');
  given(collectionDecider, history(create(true)))
    .when(add(recipient('p1', ['i1'])))
    .thenError('conflict', Messages.alreadyExists);
  given(collectionDecider, history(create(true)))
    .when(add(recipient('p3', ['zz'])))
    .thenError('invalid', CollectionMessages.unknownItemKey);
  given(collectionDecider, history(create(true), cmd({ type: 'CancelCollection', reason: null })))
    .when(add())
    .thenError('conflict', Messages.collectionClosed);
});

test('reissue a link: the version goes up and the new hash replaces the old; unknown recipient 404', () => {
  const reissue = cmd({ type: 'ReissueLink', recipientId: 'p1', linkHash: 'hash-p1-2' });
  const events = given(collectionDecider, history(create(true)))
    .when(reissue)
    .decided();
  assert.equal(
    events.map((e) => [e.type, e.data.payload]),
    [['RecipientLinkReissued', { linkVersion: 2 }]],
  );
  const r = stateOf([...history(create(true)), ...events]).recipients[0]!;
  assert.equal([r.linkVersion, r.linkHash], [2, 'hash-p1-2']);
  given(collectionDecider, history(create(true)))
    .when({ ...reissue, recipientId: 'nobody' } as typeof reissue)
    .thenError('not_found', CollectionMessages.recipientNotFound);
  given(collectionDecider, history(create(true), cmd({ type: 'CancelCollection', reason: null })))
    .when(reissue)
    .thenError('conflict', Messages.collectionClosed);
});

test('recipient activity: notified (DELIVERED), reminded, failed, opened once; repeated message ids recorded once', () => {
  const notified = cmd({ type: 'RecordRecipientNotified', recipientId: 'p1', messageId: 'm1', channel: 'EMAIL', reminder: false, provenance: { provider: 'smtp', sandbox: false } }, { actor: SYSTEM });
  const reminded = cmd({ type: 'RecordRecipientNotified', recipientId: 'p1', messageId: 'm2', channel: 'EMAIL', reminder: true, provenance: { provider: 'smtp', sandbox: false } }, { actor: SYSTEM });
  const failed = cmd({ type: 'RecordMessageFailed', recipientId: 'p2', messageId: 'm3', error: '550 mailbox unavailable' }, { actor: SYSTEM });
  const opened = cmd({ type: 'RecordRecipientOpened', recipientId: 'p1' }, { actor: { actorType: 'RECIPIENT', actorId: 'p1' } });
  const events = history(create(true), notified, notified, reminded, failed, failed, opened, opened);
  assert.equal(
    events.slice(2).map((e) => [e.type, e.data.action]),
    [
      ['RecipientNotified', 'RECIPIENT_NOTIFIED'],
      ['RecipientReminded', 'RECIPIENT_REMINDED'],
      ['RecipientMessageFailed', 'RECIPIENT_MESSAGE_FAILED'],
      ['RecipientOpened', 'RECIPIENT_OPENED'],
    ],
  );
  const state = stateOf(events);
  assert.equal(
    state.recipients.map((r) => r.status),
    ['OPENED', 'FAILED'],
  );
  assert.is(state.recipients[0]!.reminders, 1);
  given(collectionDecider, history(create(false)))
    .when(opened)
    .thenError('conflict', CollectionMessages.notSent);
  given(collectionDecider, history(create(true), cmd({ type: 'CancelCollection', reason: null })))
    .when(opened)
    .thenError('conflict', Messages.collectionClosed);
});

test.run();
