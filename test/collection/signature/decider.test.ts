import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CollectionCommand } from '../../../domain/collection/commands.ts';
import { collectionDecider } from '../../../domain/collection/decider.ts';
import { CollectionMessages, SignatureMessages } from '../../../domain/collection/messages.ts';
import type { CollectionModuleEvent } from '../../../domain/collection/payloads.ts';
import { given } from '../../support/decider.ts';
import { cmd, create, definition, history, item, recipient, stateOf, SYSTEM } from '../fixtures.ts';
import { decline, HASH, later, MINUTE, recordCopy, SHA, sendCode, sign, signatureConfig, signing, signs, verify, identityChecked } from './fixtures.ts';

const test = suite('collection decider: signatures');
const types = (events: { type: string }[]) => events.map((e) => e.type);
/** The events of `events` followed by deciding each command in turn. */
const more = (events: CollectionModuleEvent[], ...commands: CollectionCommand[]) => commands.reduce((all, command) => [...all, ...collectionDecider.decide(command, stateOf(all))], events);
const created = (config = {}, parties?: string[]) => history(create(true, signing(config, parties)));

test('config: a SIGNATURE item needs mode and flow, ordered only with JOINT, and no other kind carries it', () => {
  const withItem = (extra: Parameters<typeof item>[1]) => create(true, definition({ items: [item('s1', extra)], recipients: [recipient('a', ['s1'])] }));
  given(collectionDecider)
    .when(withItem({ kind: 'SIGNATURE' }))
    .thenError('invalid', SignatureMessages.configRequired);
  given(collectionDecider)
    .when(withItem({ kind: 'SIGNATURE', config: { signature: signatureConfig({ mode: 'INDIVIDUAL', ordered: true }) } }))
    .thenError('invalid', SignatureMessages.orderedOnlyJoint);
  given(collectionDecider)
    .when(withItem({ kind: 'DOCUMENT', config: { signature: signatureConfig() } }))
    .thenError('invalid', SignatureMessages.configOnOtherKind);
  assert.equal(
    types(
      given(collectionDecider)
        .when(create(true, signing({ ordered: true })))
        .decided(),
    ),
    ['CollectionCreated', 'CollectionSent'],
  );
});

test('code: SIGNATURE_CODE_SENT with the channel in the trail, the hash and a 10-minute expiry beside it; no second code within a minute; a missing contact refused', () => {
  const [sent] = given(collectionDecider, created()).when(sendCode('a')).decided();
  assert.equal([sent!.type, sent!.data.action, sent!.data.recipientId, sent!.data.payload], ['SignatureCodeSent', 'SIGNATURE_CODE_SENT', 'a', { channel: 'EMAIL' }]);
  assert.equal([(sent!.data as { codeHash: string }).codeHash, (sent!.data as { expiresAt: string }).expiresAt], [HASH('123456'), later(10 * MINUTE)]);
  given(collectionDecider, more(created(), sendCode('a')))
    .when(sendCode('a', '654321', later(30_000)))
    .thenError('too_many', SignatureMessages.codeTooSoon);
  assert.equal(
    types(
      given(collectionDecider, more(created(), sendCode('a')))
        .when(sendCode('a', '654321', later(MINUTE)))
        .decided(),
    ),
    ['SignatureCodeSent'],
  );
  given(collectionDecider, created())
    .when(sendCode('a', '123456', later(0), 'PHONE'))
    .thenError('invalid', SignatureMessages.noPhone);
});

test('code: a wrong code is refused with the attempts left and appends nothing; the right one verifies the contact; a second confirmation changes nothing', () => {
  const past = more(created(), sendCode('a'));
  given(collectionDecider, past).when(verify('a', '000000')).thenError('invalid', SignatureMessages.wrongCode(4));
  given(collectionDecider, past)
    .when(verify('a', '000000', later(MINUTE), 3))
    .thenError('invalid', SignatureMessages.wrongCode(2));
  const [right] = given(collectionDecider, past)
    .when(verify('a', '123456', later(MINUTE), 2))
    .decided();
  assert.equal([right!.data.action, right!.data.payload], ['SIGNATURE_CONTACT_VERIFIED', { channel: 'EMAIL', verified: true, attemptsLeft: 4 }]);
  const after = more(past, verify('a'));
  const party = stateOf(after).items[0]!.details.signature!.parties[0]!;
  assert.equal([party.recipientId, party.verifiedChannel, party.verifiedAt], ['a', 'EMAIL', later(MINUTE)]);
  given(collectionDecider, after).when(verify('a')).then([]);
  given(collectionDecider, after)
    .when(sendCode('a', '111111', later(5 * MINUTE)))
    .thenError('conflict', SignatureMessages.contactAlreadyVerified);
});

test('code: expired after 10 minutes, locked past 5 tries (even the right code; a new code starts again), refused before any code', () => {
  given(collectionDecider, created()).when(verify('a')).thenError('conflict', SignatureMessages.noCode);
  given(collectionDecider, more(created(), sendCode('a')))
    .when(verify('a', '123456', later(10 * MINUTE + 1)))
    .thenError('conflict', SignatureMessages.codeExpired);
  const sent = more(created(), sendCode('a'));
  given(collectionDecider, sent)
    .when(verify('a', '000000', later(MINUTE), 5))
    .thenError('invalid', SignatureMessages.wrongCode(0));
  given(collectionDecider, sent)
    .when(verify('a', '123456', later(MINUTE), 6))
    .thenError('too_many', SignatureMessages.tooManyAttempts);
  const renewed = more(sent, sendCode('a', '222222', later(2 * MINUTE)));
  assert.equal(
    given(collectionDecider, renewed)
      .when(verify('a', '222222', later(3 * MINUTE)))
      .decided()[0]!.data.payload,
    { channel: 'EMAIL', verified: true, attemptsLeft: 5 },
  );
});

test('code: a wrong code recorded by an earlier version (verified false) neither verifies nor counts', () => {
  const past = more(created(), sendCode('a'));
  const [right] = collectionDecider.decide(verify('a'), stateOf(past));
  const legacyWrong = { ...right!, data: { ...right!.data, payload: { channel: 'EMAIL' as const, verified: false, attemptsLeft: 4 } } } as CollectionModuleEvent;
  const state = stateOf([...past, legacyWrong]);
  assert.equal([state.items[0]!.details.signature!.parties.length, state.items[0]!.details.signature!.codes.length], [0, 1]);
});

test('JOINT: each party signs with the evidence beside the trail; the last one completes in the same decision; the item resolves when the signed copy is recorded', () => {
  given(collectionDecider, created()).when(sign('a')).thenError('conflict', SignatureMessages.contactNotVerified);
  const twoSigned = more(created(), ...signs('a'), ...signs('b'), sendCode('c'), verify('c'));
  const collected = stateOf(twoSigned).items[0]!;
  assert.equal([collected.status, stateOf(twoSigned).status], ['PENDING', 'IN_PROGRESS']);
  const events = given(collectionDecider, twoSigned).when(sign('c')).decided();
  assert.equal(types(events), ['SignatureCollected', 'SignatureCompleted']);
  assert.equal(events[0]!.data.payload, { order: 3, documentSha256: SHA, contactChannel: 'EMAIL' });
  assert.equal((events[0]!.data as { evidence: object }).evidence, {
    contactChannel: 'EMAIL',
    contactVerifiedAt: later(MINUTE),
    signedAt: later(2 * MINUTE),
    ip: '203.0.113.7',
    socketAddress: null,
    forwardedFor: null,
    userAgent: 'Teste/1.0',
    documentSha256: SHA,
  });
  assert.equal([events[1]!.data.itemId, events[1]!.data.recipientId, events[1]!.data.payload], ['s1', 'c', { provider: 'interno', parties: ['a', 'b', 'c'], contentHash: SHA, signedDocument: true }]);
  const completed = [...twoSigned, ...events];
  assert.is(stateOf(completed).items[0]!.status, 'PROCESSING');
  given(collectionDecider, completed).when(sign('c')).thenError('conflict', SignatureMessages.alreadyCompleted);
  given(collectionDecider, twoSigned).when(sign('b')).thenError('conflict', SignatureMessages.alreadySigned);
  const recorded = given(collectionDecider, completed).when(recordCopy()).decided();
  assert.equal(types(recorded), ['SignatureDocumentGenerated', 'CollectionCompleted']);
  assert.equal(recorded[0]!.data.payload, { provider: 'interno', sha256: 'cd'.repeat(32), blobId: 'blob-1' });
  const done = stateOf([...completed, ...recorded]);
  assert.equal([done.status, done.items[0]!.status, done.items[0]!.details.signature!.signedCopies.length], ['COMPLETED', 'VALIDATED', 1]);
  given(collectionDecider, [...completed, ...recorded])
    .when(recordCopy())
    .then([]);
  given(collectionDecider, completed).when(recordCopy('a')).thenError('invalid', SignatureMessages.copyRecipient);
  given(collectionDecider, twoSigned).when(recordCopy()).thenError('conflict', SignatureMessages.notCompleted);
});

test('INDIVIDUAL: completed once every party signed; the item resolves with one copy per party', () => {
  const signedAll = more(created({ mode: 'INDIVIDUAL' }, ['a', 'b']), ...signs('a'), ...signs('b'));
  assert.equal(stateOf(signedAll).items[0]!.status, 'PROCESSING');
  given(collectionDecider, signedAll).when(recordCopy(null)).thenError('invalid', SignatureMessages.copyRecipient);
  const first = more(signedAll, recordCopy('a', 'blob-a'));
  assert.equal([types(first.slice(signedAll.length)), stateOf(first).items[0]!.status], [['SignatureDocumentGenerated'], 'PROCESSING']);
  assert.equal(types(given(collectionDecider, first).when(recordCopy('b', 'blob-b')).decided()), ['SignatureDocumentGenerated', 'CollectionCompleted']);
});

test('ordered: a party whose turn has not come is told whom it waits for; in order, everyone signs', () => {
  const ordered = created({ ordered: true });
  given(collectionDecider, ordered).when(sendCode('b')).thenError('conflict', SignatureMessages.awaitingTurn('Pessoa a'));
  const afterA = more(ordered, ...signs('a'));
  given(collectionDecider, afterA).when(sendCode('c')).thenError('conflict', SignatureMessages.awaitingTurn('Pessoa b'));
  assert.equal(types(more(afterA, ...signs('b'), ...signs('c')).slice(afterA.length)).slice(-2), ['SignatureCollected', 'SignatureCompleted']);
});

test('decline: recorded with the reason, the item waits for the operator and nobody signs; a REJECT asks the parties again', () => {
  given(collectionDecider, created()).when(decline('b', '  ')).thenError('invalid', SignatureMessages.declineReasonRequired);
  const past = more(created(), ...signs('a'));
  const [declined] = given(collectionDecider, past).when(decline('b')).decided();
  assert.equal([declined!.data.action, declined!.data.recipientId, declined!.data.payload], ['SIGNATURE_DECLINED', 'b', { reason: 'Valor errado no contrato.' }]);
  const stopped = more(past, decline('b'));
  const state = stateOf(stopped);
  assert.equal([state.items[0]!.status, state.items[0]!.details.signature!.parties.find((p) => p.recipientId === 'b')!.declineReason], ['AWAITING_OPERATOR', 'Valor errado no contrato.']);
  given(collectionDecider, stopped).when(sendCode('c')).thenError('conflict', SignatureMessages.declined);
  const reopened = more(stopped, cmd({ type: 'ReviewItem', itemId: 's1', decision: 'REJECT', reason: 'Contrato corrigido; assine de novo.' }));
  assert.equal(types(more(reopened, ...signs('b'), ...signs('c')).slice(reopened.length)).slice(-2), ['SignatureCollected', 'SignatureCompleted']);
});

test('SIGNATURE_AND_IDENTITY: no code before an approved identity check; a rejected check is not enough', () => {
  const past = created({ flow: 'SIGNATURE_AND_IDENTITY' });
  given(collectionDecider, past).when(sendCode('a')).thenError('conflict', SignatureMessages.identityFirst);
  given(collectionDecider, more(past, ...identityChecked('a', 'REPROVADO')))
    .when(sendCode('a'))
    .thenError('conflict', SignatureMessages.identityFirst);
  const checked = more(past, ...identityChecked('a'));
  assert.equal(stateOf(checked).items[0]!.status, 'PENDING');
  assert.equal(types(given(collectionDecider, checked).when(sendCode('a')).decided()), ['SignatureCodeSent']);
  given(collectionDecider, checked).when(sendCode('b')).thenError('conflict', SignatureMessages.identityFirst);
});

test('refusals: not a party, not a signature item, a closed collection', () => {
  const other = definition({ items: [...signing().items, item('i2')], recipients: [recipient('a', ['s1']), recipient('z', ['i2'])] });
  given(collectionDecider, history(create(true, other)))
    .when(sendCode('z'))
    .thenError('not_found', SignatureMessages.notAParty);
  const onDocument = cmd({ type: 'SignItem', itemId: 'i2', recipientId: 'z', ip: null, userAgent: null });
  given(collectionDecider, history(create(true, other)))
    .when(onDocument)
    .thenError('invalid', SignatureMessages.notASignature);
  given(collectionDecider, more(created(), cmd({ type: 'CancelCollection', reason: null })))
    .when(sendCode('a'))
    .thenError('conflict', /encerrad|cancelad|fechad/i);
  given(collectionDecider, created())
    .when(cmd({ type: 'SignItem', itemId: 'zz', recipientId: 'a', ip: null, userAgent: null }))
    .thenError('not_found', CollectionMessages.itemNotFound);
});

test('provider outcome: cancel and expiry close the collection with reason, provider and itemId; a repeated callback changes nothing', () => {
  const outcome = (o: 'CANCELED' | 'EXPIRED') =>
    cmd({ type: 'RecordProviderOutcome', itemId: 's1', outcome: o, reason: 'Envelope cancelado pelo signatário.', provider: 'externo' }, { actor: SYSTEM });
  const [canceled] = given(collectionDecider, created()).when(outcome('CANCELED')).decided();
  assert.equal([canceled!.data.action, canceled!.data.itemId, canceled!.data.payload], ['COLLECTION_CANCELED', 's1', { reason: 'Envelope cancelado pelo signatário.', provider: 'externo' }]);
  const [expired] = given(collectionDecider, created()).when(outcome('EXPIRED')).decided();
  assert.equal(
    [expired!.data.action, expired!.data.itemId, expired!.data.payload],
    ['COLLECTION_EXPIRED', 's1', { expiredItemIds: ['s1'], reason: 'Envelope cancelado pelo signatário.', provider: 'externo' }],
  );
  assert.is(stateOf(more(created(), outcome('EXPIRED'))).status, 'EXPIRED');
  given(collectionDecider, more(created(), outcome('CANCELED')))
    .when(outcome('EXPIRED'))
    .then([]);
});

test.run();
