import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectionDecider } from '../../../domain/collection/decider.ts';
import type { ItemDefinition } from '../../../domain/collection/definition.ts';
import { identityEvaluation, SANDBOX_CHECK_HELD, type IdentityCheck } from '../../../domain/collection/kinds/identity.ts';
import { passedIdentity } from '../../../domain/collection/kinds/signature-parties.ts';
import { CollectionMessages, IdentityMessages } from '../../../domain/collection/messages.ts';
import { Messages } from '../../../domain/shared/messages.ts';
import { given } from '../../support/decider.ts';
import { cmd, create, definition, history, item, recipient, RECIPIENT, stateOf } from '../fixtures.ts';

const test = suite('collection decider: identity checks');
const identityItem = (itemId: string, extra: Partial<ItemDefinition> = {}) => item(itemId, { kind: 'IDENTITY', expectedType: null, ...extra });
const signatureItem = (itemId: string, flow: 'SIGNATURE' | 'SIGNATURE_AND_IDENTITY') =>
  item(itemId, { kind: 'SIGNATURE', expectedType: null, config: { signature: { mode: 'JOINT', flow, ordered: false, registryDocumentId: 'd00000000000000000000001' } } });
const one = (items = [identityItem('i1')], mode: 'AUTOMATIC' | 'REVIEW' = 'AUTOMATIC') =>
  definition({
    items,
    recipients: [
      recipient(
        'p1',
        items.map((i) => i.itemId),
      ),
      recipient('p2', []),
    ],
    mode,
  });

const start = (checkId: string, itemId = 'i1', recipientId = 'p1') =>
  cmd({ type: 'StartIdentityCheck', itemId, recipientId, checkId, imageBlobIds: [`${checkId}-doc`, `${checkId}-selfie`] }, { actor: RECIPIENT(recipientId) });
const result = (checkId: string, verdict: IdentityCheck['verdict'], itemId = 'i1', recipientId = 'p1', deployment: 'sandbox' | 'production' = 'sandbox', sandbox = false) =>
  cmd(
    {
      type: 'RecordIdentityResult',
      itemId,
      recipientId,
      check: {
        checkId,
        provider: 'sandbox',
        verdict,
        similarity: 0.97,
        liveness: 0.99,
        signals: verdict === 'REPROVADO' ? ['FOTO_DE_TELA'] : [],
        imageCount: 2,
        ...(sandbox ? { sandbox: true as const } : {}),
      },
      deployment,
    },
    { actor: RECIPIENT(recipientId) },
  );
const types = (events: { type: string }[]) => events.map((e) => e.type);

test('AUTOMATIC outside sandbox mode: a check of the sandbox provider resolves nothing, the item waits for the operator with the reason; in sandbox mode it resolves', () => {
  const past = history(create(true, one()));
  const started = given(collectionDecider, past).when(start('k1')).decided();
  for (const verdict of ['APROVADO', 'REPROVADO'] as const) {
    const held = given(collectionDecider, [...past, ...started])
      .when(result('k1', verdict, 'i1', 'p1', 'production', true))
      .decided();
    assert.equal(types(held), ['IdentityCompleted']);
    assert.is((held[0]!.data.payload as IdentityCheck).heldForOperator, SANDBOX_CHECK_HELD);
    assert.is(stateOf([...past, ...started, ...held]).items[0]!.status, 'AWAITING_OPERATOR');
  }
  // A real provider in production, and the sandbox provider in sandbox mode, resolve as before.
  assert.equal(
    types(
      given(collectionDecider, [...past, ...started])
        .when(result('k1', 'APROVADO', 'i1', 'p1', 'production'))
        .decided(),
    ),
    ['IdentityCompleted', 'CollectionCompleted'],
  );
  assert.equal(
    types(
      given(collectionDecider, [...past, ...started])
        .when(result('k1', 'APROVADO', 'i1', 'p1', 'sandbox', true))
        .decided(),
    ),
    ['IdentityCompleted', 'CollectionCompleted'],
  );
});

test('SIGNATURE_AND_IDENTITY outside sandbox mode: a sandbox check is held for the operator and does not let the party sign; in sandbox mode it does', () => {
  const past = history(create(true, one([signatureItem('i1', 'SIGNATURE_AND_IDENTITY')])), start('k1'));
  const held = given(collectionDecider, past)
    .when(result('k1', 'APROVADO', 'i1', 'p1', 'production', true))
    .decided();
  assert.is((held[0]!.data.payload as IdentityCheck).heldForOperator, SANDBOX_CHECK_HELD);
  assert.not.ok(passedIdentity(stateOf([...past, ...held]).items[0]!, 'p1'));
  const inSandbox = given(collectionDecider, past)
    .when(result('k1', 'APROVADO', 'i1', 'p1', 'sandbox', true))
    .decided();
  assert.ok(passedIdentity(stateOf([...past, ...inSandbox]).items[0]!, 'p1'));
});

test('a check: IDENTITY_CHECK_STARTED (image count in the trail, blob ids beside it) then IDENTITY_COMPLETED; APROVADO validates and completes', () => {
  const past = history(create(true, one()));
  const started = given(collectionDecider, past).when(start('k1')).decided();
  assert.equal(
    started.map((e) => [e.type, e.data.itemId, e.data.recipientId, e.data.actorType, e.data.payload]),
    [['IdentityCheckStarted', 'i1', 'p1', 'RECIPIENT', { checkId: 'k1', imageCount: 2 }]],
  );
  assert.equal((started[0]!.data as { imageBlobIds?: string[] }).imageBlobIds, ['k1-doc', 'k1-selfie']);
  const afterStart = stateOf([...past, ...started]);
  assert.equal([afterStart.status, afterStart.items[0]!.status, afterStart.recipients[0]!.status], ['IN_PROGRESS', 'PENDING', 'IN_PROGRESS']);
  const completed = given(collectionDecider, [...past, ...started])
    .when(result('k1', 'APROVADO'))
    .decided();
  assert.equal(types(completed), ['IdentityCompleted', 'CollectionCompleted']);
  assert.equal(completed[0]!.data.payload, { checkId: 'k1', provider: 'sandbox', verdict: 'APROVADO', similarity: 0.97, liveness: 0.99, signals: [], imageCount: 2 });
  const state = stateOf([...past, ...started, ...completed]);
  assert.equal([state.status, state.items[0]!.status, state.recipients[0]!.status], ['COMPLETED', 'VALIDATED', 'COMPLETED']);
  assert.equal(
    state.items[0]!.details.identity!.checks.map((c) => [c.checkId, c.recipientId, c.verdict, c.completedAt]),
    [['k1', 'p1', 'APROVADO', '2026-11-23T12:00:00.000Z']],
  );
  given(collectionDecider, [...past, ...started, ...completed])
    .when(result('k1', 'APROVADO'))
    .then([]);
});

test('REPROVADO: REJECTED with the evaluation as the resend reason, and the person may try again; INCONCLUSIVO: MANUAL_REVIEW, no new check', () => {
  const rejected = history(create(true, one()), start('k1'), result('k1', 'REPROVADO'));
  const item = stateOf(rejected).items[0]!;
  assert.equal([item.status, item.resendReason], ['REJECTED', 'Identidade não confirmada: semelhança 97%, prova de vida aprovada; sinais: a selfie parece ser a foto de uma tela']);
  const retried = history(create(true, one()), start('k1'), result('k1', 'REPROVADO'), start('k2'), result('k2', 'APROVADO'));
  assert.equal(
    stateOf(retried).items[0]!.details.identity!.checks.map((c) => c.verdict),
    ['REPROVADO', 'APROVADO'],
  );
  assert.is(stateOf(retried).items[0]!.status, 'VALIDATED');
  const inconclusive = history(create(true, one()), start('k1'), result('k1', 'INCONCLUSIVO'));
  assert.is(stateOf(inconclusive).items[0]!.status, 'MANUAL_REVIEW');
  given(collectionDecider, inconclusive).when(start('k2')).thenError('conflict', IdentityMessages.notAwaitingCheck);
  const approved = cmd({ type: 'ReviewItem', itemId: 'i1', decision: 'APPROVE', reason: null });
  assert.equal(types(given(collectionDecider, inconclusive).when(approved).decided()), ['ItemReviewed', 'CollectionCompleted']);
});

test('REVIEW mode: every result waits for the operator', () => {
  const events = history(create(true, one([identityItem('i1')], 'REVIEW')), start('k1'), result('k1', 'APROVADO'));
  assert.is(stateOf(events).items[0]!.status, 'AWAITING_OPERATOR');
});

test('a SIGNATURE item with SIGNATURE_AND_IDENTITY keeps its checks without changing status; plain SIGNATURE and other kinds are refused', () => {
  const events = history(create(true, one([signatureItem('i1', 'SIGNATURE_AND_IDENTITY')])), start('k1'), result('k1', 'APROVADO'));
  assert.equal(types(events.slice(-2)), ['IdentityCheckStarted', 'IdentityCompleted']);
  const state = stateOf(events);
  assert.equal([state.items[0]!.status, state.items[0]!.details.identity!.checks.length, state.status], ['PENDING', 1, 'IN_PROGRESS']);
  given(collectionDecider, history(create(true, one([signatureItem('i1', 'SIGNATURE')]))))
    .when(start('k1'))
    .thenError('invalid', IdentityMessages.notAnIdentityItem);
  given(collectionDecider, history(create(true, one([item('i1')]))))
    .when(start('k1'))
    .thenError('invalid', IdentityMessages.notAnIdentityItem);
});

test('refusals: a draft, another recipient, an unknown item, a resolved item, a result without its start, a closed collection ignores a late result', () => {
  given(collectionDecider, history(create(false, one())))
    .when(start('k1'))
    .thenError('conflict', CollectionMessages.notSent);
  given(collectionDecider, history(create(true, one())))
    .when(start('k1', 'i1', 'p2'))
    .thenError('not_found', CollectionMessages.itemNotOfRecipient);
  given(collectionDecider, history(create(true, one())))
    .when(start('k1', 'zz'))
    .thenError('not_found', CollectionMessages.itemNotFound);
  const waived = history(create(true, one([identityItem('i1'), identityItem('i2')])), cmd({ type: 'WaiveItem', itemId: 'i1', reason: null }));
  given(collectionDecider, waived).when(start('k1')).thenError('conflict', CollectionMessages.itemResolved);
  given(collectionDecider, history(create(true, one())))
    .when(result('k1', 'APROVADO'))
    .thenError('not_found', IdentityMessages.checkNotFound);
  const canceled = history(create(true, one()), start('k1'), cmd({ type: 'CancelCollection', reason: null }));
  given(collectionDecider, canceled).when(result('k1', 'APROVADO')).then([]);
  given(collectionDecider, canceled).when(start('k2')).thenError('conflict', Messages.collectionClosed);
  given(collectionDecider, history(create(true, one()), start('k1')))
    .when(start('k1'))
    .then([]);
});

test("image view: IDENTITY_IMAGES_VIEWED by the operator, also on a closed collection; an unknown check or another tenant's collection refused", () => {
  const view = (checkId: string, extra = {}) => cmd({ type: 'RecordIdentityImagesViewed', itemId: 'i1', checkId }, extra);
  const closed = history(create(true, one()), start('k1'), result('k1', 'APROVADO'));
  const events = given(collectionDecider, closed).when(view('k1')).decided();
  assert.equal(
    events.map((e) => [e.type, e.data.action, e.data.actorType, e.data.itemId, e.data.payload]),
    [['IdentityImagesViewed', 'IDENTITY_IMAGES_VIEWED', 'USER', 'i1', { checkId: 'k1' }]],
  );
  assert.equal(stateOf([...closed, ...events]), stateOf(closed));
  given(collectionDecider, closed).when(view('k9')).thenError('not_found', IdentityMessages.checkNotFound);
  given(collectionDecider, closed)
    .when(view('k1', { organizationId: 'aaaaaaaaaaaaaaaaaaaaaaaa' }))
    .thenError('not_found', Messages.collectionNotFound);
});

test('evaluation texts', () => {
  assert.is(identityEvaluation({ verdict: 'APROVADO', similarity: 0.97, liveness: 0.99, signals: [] }), 'Identidade confirmada: semelhança 97%, prova de vida aprovada');
  assert.is(
    identityEvaluation({ verdict: 'REPROVADO', similarity: 1, liveness: 0, signals: ['IMAGENS_IGUAIS', 'X_NOVO'] }),
    'Identidade não confirmada: semelhança 100%, prova de vida reprovada; sinais: a selfie é a mesma imagem do documento; X_NOVO',
  );
  assert.is(
    identityEvaluation({ verdict: 'INCONCLUSIVO', similarity: null, liveness: null, signals: [] }),
    'Verificação inconclusiva, segue para análise do operador: semelhança não avaliada, prova de vida não avaliada',
  );
});

test.run();
