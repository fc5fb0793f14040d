import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Product } from '../../domain/catalog/product.ts';
import type { ProposalCommand } from '../../domain/proposal/commands.ts';
import { proposalDecider } from '../../domain/proposal/decider.ts';
import type { ProposalEvent } from '../../domain/proposal/events.ts';
import { headlineTerms } from '../../domain/proposal/installment.ts';
import { ProposalMessages } from '../../domain/proposal/messages.ts';
import { MANUAL_MOVES, PROPOSAL_STATUSES, type ProposalStatus } from '../../domain/proposal/statuses.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { personalCredit } from '../support/catalog.ts';
import { given } from '../support/decider.ts';

const test = suite('proposal decider');
const ORG = 'a00000000000000000000001';
const ID = 'b00000000000000000000001';
const EXEC = 'e00000000000000000000001';
const AT = '2026-11-23T12:00:00.000Z';
const t = { proposalId: ID, organizationId: ORG, at: AT };
const product: Product = { ...personalCredit(), productId: 'c00000000000000000000001', organizationId: ORG, version: 1 };
const range = { minAmountCents: 100_000, maxAmountCents: 500_000, minTermMonths: 6, maxTermMonths: 24, rateBpsYear: 2682, rate: null, model: 'PRICE' as const, validUntil: '2026-12-01T00:00:00.000Z' };

/** Terms as the application prices them (the values do not matter to the decider: it stores them). */
const priced = {
  ...headlineTerms(300_000, 12, 'PRICE', 2682, null),
  iof: 61.17,
  iofFinanced: true,
  fees: 150,
  cetMonthlyPercent: 2.6,
  cetYearlyPercent: 36.07,
  releaseDate: '2026-11-23',
  firstDueDate: '2026-12-23',
};

const create = (extra: Partial<Extract<ProposalCommand, { type: 'CreateProposal' }>> = {}): ProposalCommand => ({
  ...t,
  type: 'CreateProposal',
  userId: 'u1',
  document: '123.456.789-09',
  name: 'Maria',
  product,
  kind: null,
  origin: 'API',
  portfolioId: null,
  portfolio: null,
  correspondentId: null,
  agentId: null,
  externalId: null,
  requestedAmountCents: 300_000,
  requestedTermMonths: 12,
  contact: null,
  participants: [],
  ...extra,
});
const start: ProposalCommand = { ...t, type: 'StartAnalysis', executionId: EXEC, kind: 'OPERATION', targetId: 'f00000000000000000000001' };
const send = (offerId = 'd00000000000000000000001'): Extract<ProposalCommand, { type: 'SendIndicativeOffer' }> => ({
  ...t,
  type: 'SendIndicativeOffer',
  executionId: EXEC,
  offerId,
  terms: range,
  linkHash: `hash-${offerId}`,
});
const choose = (extra: Partial<Extract<ProposalCommand, { type: 'ChooseOffer' }>> = {}): ProposalCommand => ({
  ...t,
  type: 'ChooseOffer',
  offerId: 'd00000000000000000000001',
  amountCents: 300_000,
  termMonths: 12,
  reason: null,
  by: 'CUSTOMER',
  userId: null,
  terms: priced,
  ...extra,
});
const firm: ProposalCommand = {
  ...t,
  type: 'IssueFirmOffer',
  executionId: EXEC,
  offerId: 'd00000000000000000000009',
  terms: { amountCents: 300_000, termMonths: 12, rateBpsYear: 2682, rate: null, model: 'PRICE', installmentCents: 28_000, validUntil: '2026-12-10' },
};

/** The events of a history of commands, each decided on the ones before. */
function history(...commands: ProposalCommand[]): ProposalEvent[] {
  const events: ProposalEvent[] = [];
  for (const command of commands) events.push(...given(proposalDecider, events).when(command).decided());
  return events;
}
const statusOf = (events: ProposalEvent[]) => given(proposalDecider, events).state.status;
const patch = (status: ProposalStatus): ProposalCommand => ({ ...t, type: 'ChangeStatus', userId: 'u', status, reason: null });
/** A history that leaves the proposal in `status`, the way it gets there. */
function inStatus(status: ProposalStatus): ProposalEvent[] {
  const ways: Record<ProposalStatus, () => ProposalCommand[]> = {
    DRAFT: () => [],
    IN_ANALYSIS: () => [start],
    WAITING_OPERATOR: () => [patch('WAITING_OPERATOR')],
    WAITING_CUSTOMER: () => [start, send()],
    OFFER_ISSUED: () => [start, firm],
    REJECTED: () => [patch('WAITING_OPERATOR'), patch('REJECTED')],
    EXPIRED: () => [start, send(), patch('EXPIRED')],
    CANCELED: () => [patch('CANCELED')],
    ISSUED: () => [start, firm, patch('ISSUED')],
  };
  return history(create(), ...ways[status]());
}

test('create: digits, entity type, product fields, kind from the product, participants', () => {
  const events = history(create({ participants: [{ participantId: 'p1', document: '11.222.333/0001-81', name: 'Empresa', role: 'PARTNER', contact: null }] }));
  assert.equal(
    events.map((e) => e.type),
    ['ProposalCreated', 'ParticipantAdded'],
  );
  const created = events[0]!.data as Extract<ProposalEvent, { type: 'ProposalCreated' }>['data'];
  assert.equal([created.document, created.entityType, created.kind, created.productKey, created.organizationId], ['12345678909', 'PERSON', 'FINANCING', 'credito-pessoal', ORG]);
  assert.is((events[1]!.data as { entityType: string }).entityType, 'COMPANY');
  assert.equal(given(proposalDecider, events).when(create()).decided(), [], 'the same proposal id is not created twice');
});

test('create refusals', () => {
  const refuse = (extra: Parameters<typeof create>[0], kind: 'invalid' | 'conflict', message: string) => given(proposalDecider).when(create(extra)).thenError(kind, message);
  refuse({ product: null }, 'invalid', Messages.invalidProduct);
  refuse({ product: { ...product, enabled: false } }, 'invalid', Messages.invalidProduct);
  refuse({ document: '11222333000181' }, 'invalid', Messages.invalidProduct);
  refuse({ document: '12345678900' }, 'invalid', Messages.invalidDocument);
  refuse({ requestedAmountCents: 1 }, 'invalid', ProposalMessages.amountBelow(100_000));
  refuse({ requestedAmountCents: null }, 'invalid', ProposalMessages.amountRequired);
  refuse({ requestedTermMonths: 99 }, 'invalid', ProposalMessages.termAbove(36));
  refuse({ portfolioId: 'x' }, 'invalid', ProposalMessages.invalidPortfolio);
  // A fixed-amount product ignores the requested amount.
  assert.is(
    given(proposalDecider)
      .when(create({ product: { ...product, fixedAmountCents: 5000 }, requestedAmountCents: null }))
      .decided().length,
    1,
  );
});

test('another organization and an absent proposal are not found', () => {
  given(proposalDecider).when(start).thenError('not_found', Messages.proposalNotFound);
  given(proposalDecider, history(create()))
    .when({ ...start, organizationId: 'a00000000000000000000002' })
    .thenError('not_found', Messages.proposalNotFound);
});

test('PATCH moves: same status nothing, the table allowed, everything else 409 naming both', () => {
  for (const from of PROPOSAL_STATUSES) {
    const past = inStatus(from);
    assert.is(statusOf(past), from);
    for (const to of PROPOSAL_STATUSES) {
      const when = given(proposalDecider, past).when(patch(to));
      if (to === from) when.then([]);
      else if (MANUAL_MOVES[from].includes(to)) assert.is(statusOf([...past, ...when.decided()]), to);
      else when.thenError('conflict', ProposalMessages.statusMove(from, to));
    }
  }
});

test('analysis: DRAFT -> IN_ANALYSIS linking the execution; the same execution twice is nothing', () => {
  const events = history(create(), start);
  assert.equal(
    events.slice(1).map((e) => e.type),
    ['AnalysisStarted', 'ProposalStatusChanged'],
  );
  assert.is(statusOf(events), 'IN_ANALYSIS');
  given(proposalDecider, events).when(start).then([]);
});

test('decision: APPROVED keeps the status; REJECTED is terminal and refuses further writes', () => {
  const approved = history(create(), start, { ...t, type: 'RecordDecision', executionId: EXEC, decision: 'APPROVED', step: 'policy' });
  assert.is(statusOf(approved), 'IN_ANALYSIS');
  const rejected = history(create(), start, { ...t, type: 'RecordDecision', executionId: EXEC, decision: 'REJECTED', step: 'score' });
  assert.is(statusOf(rejected), 'REJECTED');
  given(proposalDecider, rejected).when(send()).thenError('conflict', ProposalMessages.proposalClosed);
  given(proposalDecider, rejected)
    .when({ ...t, type: 'AddParticipant', userId: 'u', participant: { participantId: 'p', document: '11144477735', name: 'X', role: 'SPOUSE', contact: null } })
    .thenError('conflict', ProposalMessages.proposalClosed);
});

test('indicative offer: round 1, WAITING_CUSTOMER; a bad range is refused; a new round supersedes', () => {
  const events = history(create(), start, send());
  assert.is(statusOf(events), 'WAITING_CUSTOMER');
  assert.is((events.at(-2)!.data as { round: number }).round, 1);
  given(proposalDecider, events)
    .when({ ...send('d00000000000000000000002'), terms: { ...range, minAmountCents: 900_000 } })
    .thenError('invalid', ProposalMessages.invalidOfferRange);
  const second = history(create(), start, send(), send('d00000000000000000000002'));
  assert.is((second.at(-1)!.data as { round: number }).round, 2);
  given(proposalDecider, second).when(choose()).thenError('conflict', ProposalMessages.offerSuperseded);
});

test('choose: within limits, once, not expired, not a firm offer, not unknown', () => {
  const past = history(create(), start, send());
  const [chosen] = given(proposalDecider, past).when(choose()).decided();
  assert.equal(chosen!.type, 'OfferChosen');
  assert.equal((chosen!.data as { executionId: string }).executionId, EXEC, 'the process manager finds its execution');
  assert.equal(given(proposalDecider, [...past, chosen!]).state.offers[0]!.chosen!.terms, priced, 'the priced terms are stored with the choice');
  given(proposalDecider, past)
    .when(choose({ amountCents: 99_999 }))
    .thenError('invalid', ProposalMessages.amountBelow(100_000));
  given(proposalDecider, past)
    .when(choose({ amountCents: 500_001 }))
    .thenError('invalid', ProposalMessages.amountAbove(500_000));
  given(proposalDecider, past)
    .when(choose({ termMonths: 5 }))
    .thenError('invalid', ProposalMessages.termBelow(6));
  given(proposalDecider, past)
    .when(choose({ termMonths: 25 }))
    .thenError('invalid', ProposalMessages.termAbove(24));
  given(proposalDecider, past)
    .when(choose({ offerId: 'zz' }))
    .thenError('not_found', ProposalMessages.offerNotFound);
  given(proposalDecider, past)
    .when({ ...choose(), at: '2026-12-02T00:00:00.000Z' })
    .thenError('conflict', ProposalMessages.offerExpired);
  given(proposalDecider, [...past, chosen!])
    .when(choose())
    .thenError('conflict', Messages.offerAlreadyChosen);
  given(proposalDecider, history(create(), start, firm))
    .when(choose({ offerId: 'd00000000000000000000009' }))
    .thenError('conflict', ProposalMessages.offerNotChoosable);
});

test('an OfferChosen written before terms were stored still folds, with the headline terms it was shown with', () => {
  const past = history(create(), start, send());
  const [chosen] = given(proposalDecider, past).when(choose()).decided();
  const { terms: _terms, ...legacy } = (chosen as Extract<ProposalEvent, { type: 'OfferChosen' }>).data;
  const folded = given(proposalDecider, [...past, { type: 'OfferChosen' as const, data: legacy }]).state.offers[0]!.chosen!;
  // 2682 bps a year (1.99988% a month) on R$ 3.000,00 over 12 months (PRICE), without IOF or fees: PMT = 283.67.
  assert.equal(folded.terms, headlineTerms(300_000, 12, 'PRICE', 2682, null));
  assert.equal([folded.terms.installment, folded.terms.iof, folded.terms.cetYearlyPercent], [283.67, null, null]);
});

test('expire: an indicative offer past validUntil without a choice; the waiting proposal EXPIRED; anything else nothing', () => {
  const past = history(create(), start, send());
  const expire = (extra = {}): ProposalCommand => ({ ...t, type: 'ExpireOffer', offerId: 'd00000000000000000000001', at: '2026-12-01T00:00:01.000Z', ...extra });
  const events = given(proposalDecider, past).when(expire()).decided();
  assert.equal(
    events.map((e) => e.type),
    ['OfferExpired', 'ProposalStatusChanged'],
  );
  assert.equal(events[1]!.data, { ...t, at: '2026-12-01T00:00:01.000Z', from: 'WAITING_CUSTOMER', to: 'EXPIRED', reason: ProposalMessages.expiredWithoutChoice, by: 'SCHEDULER', executionId: EXEC });
  assert.is(given(proposalDecider, [...past, ...events]).state.offers[0]!.expiredAt, '2026-12-01T00:00:01.000Z');
  given(proposalDecider, [...past, ...events])
    .when(expire())
    .then([], 'a second pass');
  given(proposalDecider, past)
    .when(expire({ at: '2026-11-30T23:59:59.000Z' }))
    .then([], 'still valid');
  given(proposalDecider, history(create(), start, send(), choose()))
    .when(expire())
    .then([], 'chosen');
  given(proposalDecider, history(create(), start, send(), send('d00000000000000000000002')))
    .when(expire())
    .then([], 'replaced by a later round');
  const operator = history(create(), start, send(), { ...t, type: 'ChangeStatus', userId: 'u', status: 'WAITING_OPERATOR', reason: null });
  assert.equal(
    given(proposalDecider, operator)
      .when(expire())
      .decided()
      .map((e) => e.type),
    ['OfferExpired'],
    'the offer lapses; a proposal not waiting on it keeps its status',
  );
});

test('link reissue: the new hash replaces the old one; refused once chosen', () => {
  const past = history(create(), start, send());
  const [reissued] = given(proposalDecider, past)
    .when({ ...t, type: 'ReissueOfferLink', userId: 'u', offerId: 'd00000000000000000000001', linkHash: 'new' })
    .decided();
  assert.equal([(reissued!.data as { linkHash: string }).linkHash, (reissued!.data as { previousLinkHash: string }).previousLinkHash], ['new', 'hash-d00000000000000000000001']);
  assert.is(given(proposalDecider, [...past, reissued!]).state.offers[0]!.linkHash, 'new');
  given(proposalDecider, history(create(), start, send(), choose()))
    .when({ ...t, type: 'ReissueOfferLink', userId: 'u', offerId: 'd00000000000000000000001', linkHash: 'x' })
    .thenError('conflict', Messages.offerAlreadyChosen);
});

test('operator wait, firm offer, close: statuses and idempotency', () => {
  const waiting = history(create(), start, send(), choose(), { ...t, type: 'AwaitOperator', executionId: EXEC, reason: 'aprovação' });
  assert.is(statusOf(waiting), 'WAITING_OPERATOR');
  const issued = history(create(), start, send(), choose(), firm);
  assert.is(statusOf(issued), 'OFFER_ISSUED');
  given(proposalDecider, issued).when(firm).then([]);
  const close = { ...t, type: 'CloseProposal', executionId: EXEC, status: 'ISSUED', date: '2026-11-23' } as const;
  const closed = history(create(), start, send(), choose(), firm, close);
  assert.is(statusOf(closed), 'ISSUED');
  given(proposalDecider, closed).when(close).then([]);
  given(proposalDecider, closed)
    .when({ ...close, date: '2026-11-24' })
    .thenError('conflict', ProposalMessages.alreadyClosed);
  given(proposalDecider, closed)
    .when({ ...close, status: 'CANCELED' })
    .thenError('conflict', ProposalMessages.alreadyClosed);
  assert.is(statusOf(history(create(), { ...close, status: 'CANCELED' })), 'CANCELED');
});

test('participants: add, change (no-op when equal), remove, refusals', () => {
  const participant = { participantId: 'p1', document: '11144477735', name: 'João', role: 'GUARANTOR' as const, contact: null };
  const past = history(create(), { ...t, type: 'AddParticipant', userId: 'u', participant });
  given(proposalDecider, past)
    .when({ ...t, type: 'AddParticipant', userId: 'u', participant: { ...participant, participantId: 'p2' } })
    .thenError('conflict', ProposalMessages.participantAlreadyAdded);
  given(proposalDecider, past)
    .when({ ...t, type: 'ChangeParticipant', userId: 'u', participantId: 'p1', change: { name: 'João' } })
    .then([]);
  assert.is(
    given(proposalDecider, past)
      .when({ ...t, type: 'ChangeParticipant', userId: 'u', participantId: 'p1', change: { role: 'SPOUSE' } })
      .decided()[0]!.type,
    'ParticipantChanged',
  );
  given(proposalDecider, past)
    .when({ ...t, type: 'ChangeParticipant', userId: 'u', participantId: 'p1', change: { document: '1' } })
    .thenError('invalid', Messages.invalidDocument);
  given(proposalDecider, past)
    .when({ ...t, type: 'ChangeParticipant', userId: 'u', participantId: 'zz', change: {} })
    .thenError('not_found', ProposalMessages.participantNotFound);
  const removed = history(create(), { ...t, type: 'AddParticipant', userId: 'u', participant }, { ...t, type: 'RemoveParticipant', userId: 'u', participantId: 'p1' });
  assert.equal(given(proposalDecider, removed).state.participants, []);
  given(proposalDecider, removed)
    .when({ ...t, type: 'RemoveParticipant', userId: 'u', participantId: 'p1' })
    .thenError('not_found', ProposalMessages.participantNotFound);
});

test.run();
