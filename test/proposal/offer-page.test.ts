import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sendIndicativeOffer } from '../../application/proposal/commands.ts';
import { ProposalMessages } from '../../domain/proposal/messages.ts';
import { PROPOSAL_PROJECTION } from '../../projections/proposal/projection.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { seedProduct } from '../support/catalog.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';

const test = suite('public offer page over real HTTP');
let app: TestApp;
let tenant: TestTenant;
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

test.before(async () => {
  app = await startTestApp();
  tenant = await provisionTenant(app);
  await seedProduct(app, tenant.organizationId);
});
test.after(async () => {
  await app?.stop();
});

async function sent() {
  const p = (await app.call('POST', '/v1/proposals', { token: tenant.token, body: { document: '12345678909', name: 'Maria <Souza>', productKey: 'credito-pessoal', requestedAmountCents: 500_000 } }))
    .body;
  const result = await sendIndicativeOffer(app.app, { organizationId: tenant.organizationId, proposalId: p.id, executionId: 'e0000000000000000000000b', offer });
  await app.app.readYourWrites([PROPOSAL_PROJECTION], result.position);
  return { proposalId: p.id as string, ...result };
}

const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const open = (token: string) => fetch(`${app.url}/oferta/${token}`, { headers: BROWSER });
const submit = (token: string, fields: Record<string, string>) =>
  fetch(`${app.url}/oferta/${token}/escolha`, { method: 'POST', headers: { ...BROWSER, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });

test('the page: HTML for a phone, no bearer token, the offer and a simulation, names escaped', async () => {
  const { linkToken } = await sent();
  const reply = await open(linkToken);
  assert.is(reply.status, 200);
  assert.match(reply.headers.get('content-type') ?? '', /^text\/html/);
  const text = await reply.text();
  assert.match(text, /name="viewport"/);
  assert.match(text, /Maria &#60;Souza&#62;/);
  assert.match(text, /R\$\s2\.000,00 a R\$\s8\.000,00/);
  assert.match(text, /6 a 24 meses/);
  assert.match(text, /2% ao mês/);
  // 8000 at 2% a month over 24 months: 8000 · 0.02 / (1 − 1.02^−24) = 422.97, the live estimate without IOF and fees.
  assert.match(text, /R\$\s422,97<\/strong> \(sem IOF e tarifas\)/);
  // The worked example at the largest amount and term is priced with the product's financed IOF and fee.
  assert.match(text, /Exemplo: R\$\s8\.000,00 em 24 meses/);
  assert.match(text, /<dt>Tarifas<\/dt><dd>R\$\s150,00<\/dd>/);
  assert.match(text, /<dt>CET<\/dt><dd>[\d,]+% ao mês \([\d,]+% ao ano\)/);
  assert.match(text, /<form method="post"/);
});

test('the form records the choice by CUSTOMER; a second submit is 409; limits answer 400 with the limit', async () => {
  const { linkToken, proposalId } = await sent();
  const below = await submit(linkToken, { amount: '1.999,99', termMonths: '12' });
  assert.is(below.status, 400);
  assert.match(await below.text(), new RegExp(ProposalMessages.amountBelow(200_000)));
  assert.is((await submit(linkToken, { amount: 'muito', termMonths: '12' })).status, 400);
  const chosen = await submit(linkToken, { amount: '5.000,00', termMonths: '12' });
  assert.is(chosen.status, 200);
  const page = await chosen.text();
  const detail = (await app.call('GET', `/v1/proposals/${proposalId}`, { token: tenant.token })).body;
  const choice = detail.rounds[0].offers[0].chosen;
  assert.equal([choice.by, choice.amountCents], ['CUSTOMER', 500_000]);
  // The confirmation shows the terms stored with the choice: the installment with financed IOF and fee, IOF, fee, CET.
  const shown = (reais: number) => new RegExp(`R\\$\\s${reais.toLocaleString('pt-BR', { minimumFractionDigits: 2 }).replace('.', '\\.')}`);
  for (const value of [choice.terms.installment, choice.terms.iof, choice.terms.fees, choice.terms.totalPayable]) assert.match(page, shown(value));
  assert.match(page, new RegExp(`${choice.terms.cetYearlyPercent.toLocaleString('pt-BR')}% ao ano`));
  assert.is((await submit(linkToken, { amount: '5.000,00', termMonths: '12' })).status, 409);
  assert.is((await open(linkToken)).status, 409);
});

test('resend: the previous link stops opening, the new one opens; unknown tokens are a 404 page', async () => {
  const { linkToken, proposalId, offerId } = await sent();
  const resent = (await app.call('POST', `/v1/proposals/${proposalId}/offers/${offerId}/resend`, { token: tenant.token })).body;
  const old = await open(linkToken);
  assert.is(old.status, 404);
  assert.match(old.headers.get('content-type') ?? '', /^text\/html/);
  assert.is((await submit(linkToken, { amount: '5000', termMonths: '12' })).status, 404);
  assert.is((await open(resent.linkToken)).status, 200);
  const script = await app.call('GET', `/oferta/${linkToken}`);
  assert.equal(script.body, { code: 404, message: ProposalMessages.offerLinkGone }, 'a client that does not ask for HTML gets the error body');
  assert.is((await fetch(resent.url)).status, 200, 'the url handed out opens the page');
  assert.is((await open('x'.repeat(43))).status, 404);
  assert.is((await open('%00')).status, 400, 'a NUL in the path is malformed before any lookup');
});

test('an ended proposal answers 409: the offer is no longer available', async () => {
  const { linkToken, proposalId } = await sent();
  await app.call('PATCH', `/v1/proposals/${proposalId}/status`, { token: tenant.token, body: { status: 'CANCELED' } });
  const ended = await open(linkToken);
  assert.is(ended.status, 409);
  assert.match(await ended.text(), new RegExp(ProposalMessages.offerUnavailable));
});

test.run();
