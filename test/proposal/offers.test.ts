import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { awaitOperator, closeProposal, issueFirmOffer, loadProposal, recordDecision, sendIndicativeOffer, startAnalysis } from '../../application/proposal/commands.ts';
import { ProposalMessages } from '../../domain/proposal/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { PROPOSAL_PROJECTION } from '../../projections/proposal/projection.ts';
import type { TestApp } from '../support/app.ts';
import { seedProduct } from '../support/catalog.ts';
import { provisionTenant, serviceWithTenant, type TestTenant } from '../support/identity.ts';

const test = suite('offers: choose, resend, the pipeline commands and the facts row');
let app: TestApp;
let tenant: TestTenant;
let other: TestTenant;
const MISSING = '0123456789abcdef01234567';
const EXECUTION = 'e0000000000000000000000a';

const call = serviceWithTenant(test, async (a, t) => {
  app = a;
  tenant = t;
  other = await provisionTenant(app, { name: 'Other' });
  await seedProduct(app, tenant.organizationId);
});
const offer = { minAmountCents: 200_000, maxAmountCents: 800_000, minTermMonths: 6, maxTermMonths: 24, rateBpsYear: 2682, rate: { value: '2', period: 'MONTH' as const }, model: 'PRICE' as const, validUntil: '2999-01-01T00:00:00.000Z' };

async function proposalWithOffer() {
  const p = (await call('POST', '/v1/proposals', { document: '12345678909', name: 'Maria', productKey: 'credito-pessoal', requestedAmountCents: 500_000, requestedTermMonths: 12 })).body;
  const step = { organizationId: tenant.organizationId, proposalId: p.id, executionId: EXECUTION };
  await startAnalysis(app.app, { ...step, kind: 'OPERATION', targetId: MISSING });
  await recordDecision(app.app, { ...step, decision: 'APPROVED', step: 'policy' });
  const sent = await sendIndicativeOffer(app.app, { ...step, offer });
  return { p, step, sent };
}

async function facts(proposalId: string) {
  return app.app.db('proposal_facts').where({ id: proposalId }).first();
}

test('choose within limits; chosen.terms in percent and reais; the second choice is 409', async () => {
  const { p, sent } = await proposalWithOffer();
  const detail = (await call('GET', `/v1/proposals/${p.id}`)).body;
  assert.is(detail.status, 'WAITING_CUSTOMER');
  assert.equal(detail.rounds.map((r: any) => [r.round, r.offers.map((o: any) => [o.kind, o.status])]), [[1, [['INDICATIVE', 'SENT']]]]);
  assert.equal(detail.executions.map((e: any) => [e.executionId, e.decision]), [[EXECUTION, 'APPROVED']]);
  const path = `/v1/proposals/${p.id}/offers/${sent.offerId}/choose`;
  assert.equal((await call('POST', path, { amountCents: 199_999, termMonths: 12 })).body, { code: 400, message: ProposalMessages.amountBelow(200_000) });
  assert.equal((await call('POST', path, { amountCents: 800_001, termMonths: 12 })).body, { code: 400, message: ProposalMessages.amountAbove(800_000) });
  assert.equal((await call('POST', path, { amountCents: 500_000, termMonths: 5 })).body, { code: 400, message: ProposalMessages.termBelow(6) });
  assert.equal((await call('POST', path, { amountCents: 500_000, termMonths: 25 })).body, { code: 400, message: ProposalMessages.termAbove(24) });
  assert.equal((await call('POST', `/v1/proposals/${p.id}/offers/${MISSING}/choose`, { amountCents: 500_000, termMonths: 12 })).body, { code: 404, message: ProposalMessages.offerNotFound });
  assert.equal((await call('POST', path, { amountCents: 500_000, termMonths: 12 }, other.token)).body, { code: 404, message: Messages.proposalNotFound });
  const chosen = await call('POST', path, { amountCents: 500_000, termMonths: 12, reason: 'cliente ligou', organizationId: other.organizationId });
  assert.is(chosen.status, 200, JSON.stringify(chosen.body));
  assert.is(chosen.body.offer.status, 'CHOSEN');
  assert.is(chosen.body.chosen.by, 'OPERATOR');
  // 2% a month on R$ 5.000,00 over 12 months (PRICE): 5000 · 0.02 / (1 − 1.02^−12) = 472.80 (spreadsheet PMT).
  assert.equal(chosen.body.chosen.terms, { amount: 5000, termMonths: 12, monthlyRatePercent: 2, yearlyRatePercent: 26.8242, installment: 472.8, totalPayable: 5673.6, totalCostPercent: 13.472 });
  assert.equal((await call('POST', path, { amountCents: 500_000, termMonths: 12 })).body, { code: 409, message: Messages.offerAlreadyChosen });
  assert.equal((await call('POST', `/v1/proposals/${p.id}/offers/${sent.offerId}/resend`)).body, { code: 409, message: Messages.offerAlreadyChosen });
  const row = await facts(p.id);
  assert.equal([Number(row.chosen_cents), row.chosen_by, row.status], [500_000, 'OPERATOR', 'WAITING_CUSTOMER']);
});

test('resend: a new link each call, only the hash kept, the previous link stops resolving', async () => {
  const { p, sent } = await proposalWithOffer();
  const first = await call('POST', `/v1/proposals/${p.id}/offers/${sent.offerId}/resend`);
  assert.is(first.status, 200, JSON.stringify(first.body));
  const second = (await call('POST', `/v1/proposals/${p.id}/offers/${sent.offerId}/resend`)).body;
  assert.is.not(second.linkToken, first.body.linkToken);
  assert.ok(second.url.endsWith(`/oferta/${second.linkToken}`));
  const links = await app.app.db('proposal_offer_links').where({ offer_id: sent.offerId });
  assert.is(links.length, 1, 'only the current link opens');
  const stream = JSON.stringify(await app.app.store.readStream(`proposal-${p.id}`), (_k, v) => (typeof v === 'bigint' ? String(v) : v));
  for (const token of [sent.linkToken, first.body.linkToken, second.linkToken]) assert.not.ok(stream.includes(token), 'raw tokens are never stored');
});

test('pipeline commands: operator wait, firm offer, close (repeat same = nothing, different = 409), facts row', async () => {
  const { p, step, sent } = await proposalWithOffer();
  await call('POST', `/v1/proposals/${p.id}/offers/${sent.offerId}/choose`, { amountCents: 300_000, termMonths: 10 });
  await awaitOperator(app.app, { ...step, reason: 'aprovação final' });
  assert.is((await loadProposal(app.app, p.id)).status, 'WAITING_OPERATOR');
  const firm = await issueFirmOffer(app.app, { ...step, amountCents: 300_000, termMonths: 10, rateBpsYear: 2682, rate: offer.rate, model: 'PRICE', validUntil: '2999-01-01' });
  assert.is(firm.state.status, 'OFFER_ISSUED');
  const closed = await closeProposal(app.app, { ...step, status: 'ISSUED', date: '2026-11-23' });
  assert.is(closed.state.status, 'ISSUED');
  assert.is((await closeProposal(app.app, { ...step, status: 'ISSUED', date: '2026-11-23' })).position, null);
  await closeProposal(app.app, { ...step, status: 'ISSUED', date: '2026-11-24' }).then(
    () => assert.unreachable('a different date is refused'),
    (error) => assert.is(error.message, ProposalMessages.alreadyClosed),
  );
  await app.app.readYourWrites([PROPOSAL_PROJECTION], closed.position);
  const detail = (await call('GET', `/v1/proposals/${p.id}`)).body;
  assert.equal(detail.rounds[0].offers.map((o: any) => [o.kind, o.status]), [['INDICATIVE', 'CHOSEN'], ['FIRM', 'ISSUED']]);
  assert.equal(detail.closed, { executionId: EXECUTION, status: 'ISSUED', date: '2026-11-23' });
  const row = await facts(p.id);
  assert.equal(
    [row.status, row.decision, Number(row.requested_cents), Number(row.firm_cents), Number(row.chosen_cents), row.chosen_by, row.expired_without_choice],
    ['ISSUED', 'APPROVED', 500_000, 300_000, 300_000, 'OPERATOR', false],
  );
  for (const column of ['analyzed_at', 'pre_approved_at', 'firm_offer_at', 'chosen_at', 'issued_at', 'issued_on']) assert.ok(row[column], column);
});

test('rejection and expiry land in the facts row', async () => {
  const { p, step } = await proposalWithOffer();
  const expired = await call('PATCH', `/v1/proposals/${p.id}/status`, { status: 'EXPIRED' });
  assert.is(expired.body.status, 'EXPIRED');
  const q = (await call('POST', '/v1/proposals', { document: '12345678909', name: 'Maria', productKey: 'credito-pessoal', requestedAmountCents: 500_000 })).body;
  const rejected = await recordDecision(app.app, { ...step, proposalId: q.id, decision: 'REJECTED', step: 'score' });
  await app.app.readYourWrites([PROPOSAL_PROJECTION], rejected.position);
  assert.equal([(await facts(p.id)).expired_without_choice, (await facts(p.id)).status], [true, 'EXPIRED']);
  const row = await facts(q.id);
  assert.equal([row.status, row.decision, row.rejection_step], ['REJECTED', 'REJECTED', 'score']);
});

test.run();
