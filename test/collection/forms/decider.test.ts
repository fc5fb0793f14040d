import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectionDecider } from '../../../domain/collection/decider.ts';
import { validateItemConfig } from '../../../domain/collection/kinds/index.ts';
import { CollectionMessages as M } from '../../../domain/collection/messages.ts';
import { assertRefused, given } from '../../support/decider.ts';
import { cmd, create, definition, history, item, recipient, RECIPIENT, stateOf } from '../fixtures.ts';
import { companyForm, field, scrTerm } from './fixtures.ts';

const test = suite('collection decider: FORM and CONSENT items');
const formItem = item('f1', { kind: 'FORM', expectedType: null, config: { form: companyForm() } });
const consentItem = item('c1', { kind: 'CONSENT', expectedType: null, config: { consent: scrTerm() } });
const def = (mode: 'AUTOMATIC' | 'REVIEW' = 'AUTOMATIC') => definition({ mode, items: [formItem, consentItem], recipients: [recipient('p1', ['f1', 'c1']), recipient('p2', [])] });
const submit = (answers: Record<string, unknown>, recipientId = 'p1') => cmd({ type: 'SubmitForm', itemId: 'f1', recipientId, answers: answers as never }, { actor: RECIPIENT(recipientId) });
const accept = (termHash = scrTerm().hash, recipientId = 'p1') =>
  cmd({ type: 'AcceptConsent', itemId: 'c1', recipientId, termHash, ip: '203.0.113.7', userAgent: 'Firefox' }, { actor: RECIPIENT(recipientId) });
const types = (events: { type: string }[]) => events.map((e) => e.type);
const good = { faturamento: 250000, setor: 'comercio', exporta: true, unknown: 'dropped' };

test("FORM, AUTOMATIC: FORM_SUBMITTED with the keys only, answers and the subject's document beside it; the item VALIDATED", () => {
  const [submitted] = given(collectionDecider, history(create(true, def())))
    .when(submit(good))
    .decided();
  assert.equal(submitted, {
    type: 'FormSubmitted',
    data: {
      organizationId: '0123456789abcdef01234567',
      collectionId: 'c00000000000000000000001',
      itemId: 'f1',
      recipientId: 'p1',
      action: 'FORM_SUBMITTED',
      actorType: 'RECIPIENT',
      actorId: 'p1',
      occurredAt: '2026-11-23T12:00:00.000Z',
      payload: { fields: ['faturamento', 'setor', 'exporta'] },
      answers: { faturamento: 250000, setor: 'comercio', exporta: true },
      document: '11222333000181',
    },
  } as never);
  const state = stateOf(history(create(true, def()), submit(good)));
  const form = state.items[0]!;
  assert.equal(
    [form.status, form.resolvedAt, form.details.form?.answers.faturamento, state.status, state.recipients[0]!.activity],
    ['VALIDATED', '2026-11-23T12:00:00.000Z', 250000, 'IN_PROGRESS', 'IN_PROGRESS'],
  );
});

test('FORM answers refused with one Portuguese sentence per wrong field; nothing appended', () => {
  const sent = given(collectionDecider, history(create(true, def())));
  sent.when(submit({})).thenError('invalid', 'O campo Faturamento mensal é obrigatório.');
  sent
    .when(submit({ faturamento: -5, setor: 'agro', cep: '123', data_fundacao: '2020-02-31', exporta: 'sim' }))
    .thenError(
      'invalid',
      [
        'O campo Faturamento mensal deve ser no mínimo 0.',
        'O campo Setor deve ser uma destas opções: comercio, industria, servicos.',
        'O campo CEP não está no formato esperado.',
        'O campo Data de fundação deve ser uma data (AAAA-MM-DD).',
        'O campo Exporta deve ser sim ou não.',
      ].join(' '),
    );
  sent.when(submit({ faturamento: 'muito' })).thenError('invalid', 'O campo Faturamento mensal deve ser um número.');
});

test('FORM refusals: another recipient, a CONSENT item, a draft', () => {
  given(collectionDecider, history(create(true, def())))
    .when(submit(good, 'p2'))
    .thenError('not_found', M.itemNotOfRecipient);
  const onConsent = cmd({ type: 'SubmitForm', itemId: 'c1', recipientId: 'p1', answers: {} });
  given(collectionDecider, history(create(true, def())))
    .when(onConsent)
    .thenError('invalid', M.notAForm);
  given(collectionDecider, history(create(false, def())))
    .when(submit(good))
    .thenError('conflict', M.notSent);
  given(collectionDecider, history(create(true, def()), submit(good)))
    .when(submit(good))
    .thenError('conflict', M.itemResolved);
});

test('FORM, REVIEW: the answers wait for the operator; a rejection asks again, the new answers wait again, approval completes', () => {
  const review = (decision: 'APPROVE' | 'REJECT', reason: string | null = null) => cmd({ type: 'ReviewItem', itemId: 'f1', decision, reason });
  const waived = cmd({ type: 'WaiveItem', itemId: 'c1', reason: null });
  const submitted = history(create(true, def('REVIEW')), waived, submit(good));
  assert.is(stateOf(submitted).items[0]!.status, 'AWAITING_OPERATOR');
  given(collectionDecider, submitted).when(submit(good)).thenError('conflict', M.formAwaitingReview);
  const rejected = [...submitted, ...collectionDecider.decide(review('REJECT', 'Faturamento incompatível.'), stateOf(submitted))];
  assert.equal([stateOf(rejected).items[0]!.status, stateOf(rejected).items[0]!.resendReason], ['REJECTED', 'Faturamento incompatível.']);
  const again = [...rejected, ...collectionDecider.decide(submit({ faturamento: 90000 }), stateOf(rejected))];
  assert.equal([stateOf(again).items[0]!.status, stateOf(again).items[0]!.details.form?.answers], ['AWAITING_OPERATOR', { faturamento: 90000 }]);
  assert.equal(types(given(collectionDecider, again).when(review('APPROVE')).decided()), ['ItemReviewed', 'CollectionCompleted']);
});

test('CONSENT: CONSENT_ACCEPTED with type, version and hash, ip and user agent beside it; the last item completes the collection', () => {
  const afterForm = history(create(true, def()), submit(good));
  const events = given(collectionDecider, afterForm).when(accept()).decided();
  assert.equal(types(events), ['ConsentAccepted', 'CollectionCompleted']);
  const data = events[0]!.data as unknown as Record<string, unknown>;
  assert.equal([data.action, data.payload, data.ip, data.userAgent], ['CONSENT_ACCEPTED', { type: 'scr', version: 2, termHash: scrTerm().hash }, '203.0.113.7', 'Firefox']);
  const state = stateOf([...afterForm, ...events]);
  assert.equal(state.items[1]!.details.consent, { recipientId: 'p1', acceptedAt: '2026-11-23T12:00:00.000Z', termHash: scrTerm().hash, ip: '203.0.113.7', userAgent: 'Firefox' });
  assert.equal([state.items[1]!.status, state.status, state.recipients[0]!.status], ['VALIDATED', 'COMPLETED', 'COMPLETED']);
});

test('CONSENT refusals: a stale term, one already accepted, a FORM item', () => {
  given(collectionDecider, history(create(true, def())))
    .when(accept(scrTerm('Outro texto.').hash))
    .thenError('conflict', M.consentStale);
  given(collectionDecider, history(create(true, def()), accept()))
    .when(accept())
    .thenError('conflict', M.itemResolved);
  const onForm = cmd({ type: 'AcceptConsent', itemId: 'f1', recipientId: 'p1', termHash: 'x', ip: null, userAgent: null });
  given(collectionDecider, history(create(true, def())))
    .when(onForm)
    .thenError('invalid', M.notAConsent);
});

test('item configs: a FORM needs a sound form, a CONSENT its term; neither config on another kind', () => {
  const formOf = (fields: ReturnType<typeof field>[], suggested?: Record<string, never>) => ({ kind: 'FORM' as const, config: { form: { fields, ...(suggested && { suggested }) } } });
  const refused: Array<[Parameters<typeof validateItemConfig>[0], string]> = [
    [{ kind: 'FORM' }, M.formRequired],
    [formOf([]), M.formRequired],
    [formOf([field('a'), field('a')]), M.formDuplicateField],
    [formOf([field('Chave')]), M.formFieldKey],
    [formOf([field('a', { type: 'BOOLEAN', validation: { min: 1 } })]), M.formValidationMismatch('a')],
    [formOf([field('a', { type: 'NUMBER', validation: { pattern: 'x' } })]), M.formValidationMismatch('a')],
    [formOf([field('a', { validation: { minLength: 5, maxLength: 2 } })]), M.formValidationMismatch('a')],
    [formOf([field('a', { validation: { pattern: '([a-z' } })]), M.formBadPattern('a')],
    [formOf([field('a', { type: 'NUMBER', choices: ['um'] })]), M.formBadChoices('a')],
    [formOf([field('a', { type: 'DATE', choices: ['2020-01-01'] })]), M.formBadChoices('a')],
    [formOf([field('a')], { b: 'x' as never }), M.formUnknownSuggestion('b')],
    [formOf([field('a', { type: 'NUMBER' })], { a: 'x' as never }), M.formBadSuggestion('a')],
    [{ kind: 'DOCUMENT', config: { form: companyForm() } }, M.formOnlyOnForm],
    [{ kind: 'CONSENT' }, M.consentRequired],
    [{ kind: 'CONSENT', config: { consent: { ...scrTerm(), text: ' ' } } }, M.consentRequired],
    [{ kind: 'CONSENT', config: { consent: { ...scrTerm(), type: 'SCR' } } }, M.consentRequired],
    [{ kind: 'FORM', config: { form: companyForm(), consent: scrTerm() } }, M.consentOnlyOnConsent],
  ];
  for (const [candidate, message] of refused) assertRefused(() => validateItemConfig(candidate), 'invalid', message);
  validateItemConfig({ kind: 'FORM', config: { form: { ...companyForm(), suggested: { faturamento: 10, setor: 'industria' } } } });
  validateItemConfig({ kind: 'CONSENT', config: { consent: scrTerm() } });
});

test('CONSENT revocation: only of an accepted term, once, by its recipient or the organization, closed collections included', () => {
  const revoke = (recipientId: string | null = 'p1') =>
    cmd({ type: 'RevokeConsent', itemId: 'c1', recipientId, reason: recipientId ? null : 'por telefone' }, recipientId ? { actor: RECIPIENT(recipientId) } : {});
  given(collectionDecider, history(create(true, def())))
    .when(revoke())
    .thenError('conflict', M.consentNotAccepted);
  given(collectionDecider, history(create(true, def()), accept()))
    .when(revoke('p2'))
    .thenError('not_found', M.itemNotOfRecipient);
  const onForm = cmd({ type: 'RevokeConsent', itemId: 'f1', recipientId: null, reason: null });
  given(collectionDecider, history(create(true, def()), accept()))
    .when(onForm)
    .thenError('invalid', M.notAConsent);

  const closed = history(create(true, def()), accept(), cmd({ type: 'CancelCollection', reason: null }));
  const [revoked] = given(collectionDecider, closed).when(revoke(null)).decided();
  assert.equal(
    [revoked!.type, revoked!.data.action, revoked!.data.recipientId, revoked!.data.payload],
    ['ConsentRevoked', 'CONSENT_REVOKED', 'p1', { type: 'scr', version: 2, termHash: scrTerm().hash, reason: 'por telefone' }],
  );
  const state = stateOf([...closed, revoked!]);
  assert.equal([state.items[1]!.status, state.items[1]!.details.consent?.acceptedAt, state.items[1]!.details.consent?.revoked?.reason], ['VALIDATED', '2026-11-23T12:00:00.000Z', 'por telefone']);
  given(collectionDecider, [...closed, revoked!])
    .when(revoke())
    .thenError('conflict', M.consentAlreadyRevoked);
});

test.run();
