import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { awaitOperator, closeProposal, issueFirmOffer, loadProposal, recordDecision, sendIndicativeOffer, startAnalysis } from '../../application/proposal/commands.ts';
import { ProposalMessages } from '../../domain/proposal/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { PROPOSAL_PROJECTION } from '../../projections/proposal/projection.ts';
import type { TestApp } from '../support/app.ts';
import { personalCredit, seedProduct } from '../support/catalog.ts';
import { plainCetYear, plainDueDates, plainIof, pricePayment } from '../pricing/reference.ts';
import { provisionTenant, serviceWithTenant, type TestTenant } from '../support/identity.ts';
import { formatValue, valueOf } from '../../application/report/export/pt-br.ts';

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
const fee = { key: 'tac', name: 'Tarifa de cadastro', amountCents: 15_000, financed: false };
const offer = {
  minAmountCents: 200_000,
  maxAmountCents: 800_000,
  minTermMonths: 6,
  maxTermMonths: 24,
  rateBpsYear: 2682,
  rate: { value: '2', period: 'MONTH' as const },
  model: 'PRICE' as const,
  validUntil: '2999-01-01T00:00:00.000Z',
};

async function proposalWithOffer(productKey = 'credito-pessoal', terms = offer) {
  const p = (await call('POST', '/v1/proposals', { document: '12345678909', name: 'Maria', productKey, requestedAmountCents: 500_000, requestedTermMonths: 12 })).body;
  const step = { organizationId: tenant.organizationId, proposalId: p.id, executionId: EXECUTION };
  await startAnalysis(app.app, { ...step, kind: 'OPERATION', targetId: MISSING });
  await recordDecision(app.app, { ...step, decision: 'APPROVED', step: 'policy' });
  const sent = await sendIndicativeOffer(app.app, { ...step, offer: terms });
  return { p, step, sent };
}

/** The proposal's facts row once the projection has every event so far (a reply no longer waits for it). */
async function facts(proposalId: string) {
  await app.app.readYourWrites([PROPOSAL_PROJECTION], await app.app.store.headPosition());
  return app.app.db('proposal_facts').where({ id: proposalId }).first();
}

test('choose within limits; chosen.terms in percent and reais; the second choice is 409', async () => {
  const { p, sent } = await proposalWithOffer();
  const detail = (await call('GET', `/v1/proposals/${p.id}`)).body;
  assert.is(detail.status, 'WAITING_CUSTOMER');
  assert.equal(
    detail.rounds.map((r: any) => [r.round, r.offers.map((o: any) => [o.kind, o.status])]),
    [[1, [['INDICATIVE', 'SENT']]]],
  );
  assert.equal(
    detail.executions.map((e: any) => [e.executionId, e.decision]),
    [[EXECUTION, 'APPROVED']],
  );
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
  // The product finances IOF and its R$ 150 fee: the installment carries them, the customer receives the R$ 5.000,00.
  const terms = chosen.body.chosen.terms;
  assert.equal([terms.amount, terms.netReleased, terms.iofFinanced, terms.fees, terms.monthlyRatePercent, terms.yearlyRatePercent], [5000, 5000, true, 150, 2, 26.8242]);
  assert.ok(terms.installment > 472.8 + 150 / 12, 'more than the headline PMT: IOF and the fee are financed');
  assert.ok(terms.cetYearlyPercent > 26.82, 'the CET is above the nominal rate');
  assert.equal((await call('POST', path, { amountCents: 500_000, termMonths: 12 })).body, { code: 409, message: Messages.offerAlreadyChosen });
  assert.equal((await call('POST', `/v1/proposals/${p.id}/offers/${sent.offerId}/resend`)).body, { code: 409, message: Messages.offerAlreadyChosen });
  const row = await facts(p.id);
  assert.equal([Number(row.chosen_cents), row.chosen_by, row.status], [500_000, 'OPERATOR', 'WAITING_CUSTOMER']);
});

test('the timeline writes money as the PDF does: R$ 10.000,00 for ten thousand reais', async () => {
  const { p, sent } = await proposalWithOffer('credito-pessoal', { ...offer, maxAmountCents: 1_000_000 });
  assert.is((await call('POST', `/v1/proposals/${p.id}/offers/${sent.offerId}/choose`, { amountCents: 1_000_000, termMonths: 12 })).status, 200);
  const lines = (await call('GET', `/v1/proposals/${p.id}`)).body.timeline.map((t: any) => t.description);
  const pdf = formatValue(valueOf('amountCents', 1_000_000));
  assert.is(pdf, 'R$ 10.000,00');
  assert.ok(lines.includes(`Oferta indicativa enviada (rodada 1): R$ 2.000,00 a ${pdf}`), lines.join('\n'));
  assert.ok(lines.includes(`Oferta escolhida pelo operador: ${pdf} em 12 meses`), lines.join('\n'));
});

test('chosen.terms is the pricing simulation at the offer rate: upfront IOF and fee, CET (worked values)', async () => {
  // Upfront IOF and fee, due dates not moved: every figure can be recomputed by the plain reference.
  await seedProduct(
    app,
    tenant.organizationId,
    personalCredit({ key: 'pessoal-avista', pricing: { ...personalCredit().pricing!, fees: [fee], iof: { applies: true, financed: false }, moveDueDatesToBusinessDay: false } }),
  );
  const { p, sent } = await proposalWithOffer('pessoal-avista');
  const clock = app.app.clock;
  // Chosen 2027-04-10 (Brasília): released that day, first due 2027-05-10, a 30-day first period.
  app.app.clock = { now: () => new Date('2027-04-10T15:00:00.000Z') };
  const chosen = await call('POST', `/v1/proposals/${p.id}/offers/${sent.offerId}/choose`, { amountCents: 500_000, termMonths: 12 }).finally(() => (app.app.clock = clock));
  assert.is(chosen.status, 200, JSON.stringify(chosen.body));
  // 2% a month, R$ 5.000,00, 12 months, PRICE: PMT 472.80 (HP-12C: 5000 PV, 2 i, 12 n); the last absorbs the residue.
  const pmt = Math.round(pricePayment(500_000, 0.02, 12));
  assert.is(pmt, 47_280);
  let balance = 500_000;
  const amortizations: number[] = [];
  const payments: number[] = [];
  for (let k = 0; k < 12; k++) {
    const interest = Math.round(balance * 0.02);
    const principal = k === 11 ? balance : pmt - interest;
    balance -= principal;
    amortizations.push(principal);
    payments.push(principal + interest);
  }
  const dues = plainDueDates('2027-05-10', 12);
  const iof = plainIof(amortizations, '2027-04-10', dues, 0.000082, 0.0038).reduce((a, b) => a + b, 0);
  const net = 500_000 - iof - 15_000;
  const cetYear = plainCetYear(net, payments, '2027-04-10', dues);
  const total = payments.reduce((a, b) => a + b, 0);
  assert.equal(chosen.body.chosen.terms, {
    amount: 5000,
    termMonths: 12,
    monthlyRatePercent: 2,
    yearlyRatePercent: 26.8242,
    installment: 472.8,
    totalPayable: total / 100,
    totalCostPercent: Math.round(((total - net) / 500_000) * 1_000_000) / 10_000,
    netReleased: net / 100,
    iof: iof / 100,
    iofFinanced: false,
    fees: 150,
    cetMonthlyPercent: Math.round((Math.pow(1 + cetYear, 1 / 12) - 1) * 10_000) / 100,
    cetYearlyPercent: Math.round(cetYear * 10_000) / 100,
    releaseDate: '2027-04-10',
    firstDueDate: '2027-05-10',
  });
  const detail = (await call('GET', `/v1/proposals/${p.id}`)).body;
  assert.equal(detail.rounds[0].offers[0].chosen.terms, chosen.body.chosen.terms, 'the detail shows the terms stored with the choice');
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
  assert.equal(
    detail.rounds[0].offers.map((o: any) => [o.kind, o.status]),
    [
      ['INDICATIVE', 'CHOSEN'],
      ['FIRM', 'ISSUED'],
    ],
  );
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
