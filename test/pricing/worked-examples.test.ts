import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_HOLIDAYS, parseDay } from '../../domain/pricing/calendar.ts';
import { IOF_RATES } from '../../domain/pricing/iof.ts';
import { simulate, type SimulationInput } from '../../domain/pricing/simulate.ts';
import { BrazilHolidays } from '../../application/pricing/holidays.ts';
import { daysBetween, plainCetYear, plainDueDates, plainIof, pricePayment } from './reference.ts';

const test = suite('pricing: worked examples against a second implementation');

const base: SimulationInput = {
  amountCents: 1_000_000,
  termMonths: 24,
  rate: { kind: 'FIXED', rate: { value: '2', period: 'MONTH' } },
  model: 'PRICE',
  entityType: 'PERSON',
  simplesNacional: false,
  releaseDate: '2026-01-01',
  firstDueDate: '2026-01-31',
  fees: [],
  iof: { applies: false, financed: false },
  moveDueDatesToBusinessDay: false,
};
const run = (overrides: Partial<SimulationInput>) => simulate({ ...base, ...overrides }, NO_HOLIDAYS, IOF_RATES);

test('the issue example: R$ 10,000 over 24 months at 2% a month exactly is 528.71; at 2682 bps a year 528.69', () => {
  // 528.71 is the textbook value (HP-12C: 10000 PV, 2 i, 24 n -> PMT -528.71).
  assert.is(run({}).installments[0]!.amountCents, 52_871);
  assert.is(Math.round(pricePayment(1_000_000, 0.02, 24)), 52_871);
  const bps = run({ rate: { kind: 'FIXED', rateBpsYear: 2682 } });
  assert.is(bps.installments[0]!.amountCents, 52_869);
  assert.is(Math.round(pricePayment(1_000_000, Math.pow(1.2682, 1 / 12) - 1, 24)), 52_869);
  assert.equal(bps.rate, { monthlyPercent: '2.00', yearlyPercent: '26.82', rateBpsYear: 2682 });
});

test('PRICE: every row of a 24-month schedule matches the plain recurrence; the last absorbs the residue', () => {
  const sim = run({});
  const pmt = Math.round(pricePayment(1_000_000, 0.02, 24));
  let balance = 1_000_000;
  sim.installments.forEach((row, k) => {
    const interest = Math.round(balance * 0.02);
    const principal = k === 23 ? balance : pmt - interest;
    balance -= principal;
    assert.equal([row.interestCents, row.principalCents, row.balanceCents], [interest, principal, balance], `row ${k + 1}`);
  });
  assert.is(balance, 0);
  assert.equal(sim.installments.map((r) => r.dueDate), plainDueDates('2026-01-31', 24));
  assert.is(sim.installments[1]!.dueDate, '2026-02-28');
});

test('SAC: constant amortization, interest on the balance, decreasing installments', () => {
  const sim = run({ model: 'SAC', termMonths: 12, rate: { kind: 'FIXED', rate: { value: '1.5', period: 'MONTH' } } });
  let balance = 1_000_000;
  sim.installments.forEach((row, k) => {
    const principal = k === 11 ? balance : Math.round(1_000_000 / 12);
    const interest = Math.round(balance * 0.015);
    balance -= principal;
    assert.equal([row.principalCents, row.interestCents, row.amountCents], [principal, interest, principal + interest], `row ${k + 1}`);
  });
  assert.is(sim.installments[0]!.amountCents, 83_333 + 15_000);
  assert.is(sim.installments[11]!.principalCents, 83_337);
});

test('first period longer than a month: interest (1+i)^(days/30)-1 on it', () => {
  const sim = run({ model: 'SAC', termMonths: 2, firstDueDate: '2026-02-15' });
  assert.is(sim.installments[0]!.interestCents, Math.round(1_000_000 * (Math.pow(1.02, 45 / 30) - 1)));
});

test('IOF PF upfront: 0.0082% a day capped at 365 days plus 0.38%, on each amortization; CET from the net released', () => {
  const sim = run({ model: 'SAC', termMonths: 18, iof: { applies: true, financed: false } });
  const dues = plainDueDates('2026-01-31', 18);
  const iof = plainIof(sim.installments.map((r) => r.principalCents), '2026-01-01', dues, 0.000082, 0.0038);
  assert.equal(sim.installments.map((r) => r.iofCents), iof);
  assert.ok(daysBetween('2026-01-01', dues[17]!) > 365, 'the cap is exercised');
  const total = iof.reduce((a, b) => a + b, 0);
  assert.is(sim.iof!.totalCents, total);
  assert.is(sim.totals.netReleasedCents, 1_000_000 - total);
  const year = plainCetYear(1_000_000 - total, sim.installments.map((r) => r.amountCents), '2026-01-01', dues);
  assert.is(sim.cet.yearPercent, (Math.round(year * 10_000) / 100).toFixed(2));
  assert.is(sim.cet.monthPercent, (Math.round((Math.pow(1 + year, 1 / 12) - 1) * 10_000) / 100).toFixed(2));
});

test('IOF PJ: 0.0041% a day before Decreto 12.466/2025, 0.0082% after Decreto 12.499/2025; Simples Nacional up to R$ 30,000', () => {
  const at = (releaseDate: string, simplesNacional = false, amountCents = 1_000_000) => {
    const firstDueDate = new Date(parseDay(releaseDate)! * 86_400_000 + 30 * 86_400_000).toISOString().slice(0, 10);
    return simulate({ ...base, amountCents, releaseDate, firstDueDate, termMonths: 1, entityType: 'COMPANY', simplesNacional, iof: { applies: true, financed: false } }, NO_HOLIDAYS, IOF_RATES).iof!;
  };
  // One amortization of R$ 10,000 for 30 days.
  assert.is(at('2025-05-01').totalCents, Math.round(1_000_000 * (0.000041 * 30 + 0.0038)));
  assert.is(at('2025-05-23').totalCents, Math.round(1_000_000 * (0.000082 * 30 + 0.0095)));
  assert.is(at('2026-01-01').totalCents, Math.round(1_000_000 * (0.000082 * 30 + 0.0038)));
  assert.is(at('2026-01-01', true).totalCents, Math.round(1_000_000 * (0.0000274 * 30 + 0.0038)));
  assert.is(at('2026-01-01', true).bracket, 'SIMPLES_NACIONAL');
  assert.is(at('2026-01-01', true, 3_000_001).bracket, 'COMPANY');
});

test('financed IOF: the principal grows so the customer receives exactly what was asked', () => {
  const fee = { key: 'tac', name: 'TAC', amountCents: 15_000, financed: true };
  const sim = run({ termMonths: 36, iof: { applies: true, financed: true }, fees: [fee] });
  const { principalCents, iofCents, netReleasedCents } = sim.totals;
  assert.is(netReleasedCents, 1_000_000);
  assert.is(principalCents - iofCents, 1_000_000 + 15_000);
  // The IOF is the plain computation on the grossed-up schedule's own amortizations.
  const dues = plainDueDates('2026-01-31', 36);
  assert.is(iofCents, plainIof(sim.installments.map((r) => r.principalCents), '2026-01-01', dues, 0.000082, 0.0038).reduce((a, b) => a + b, 0));
  const cetYear = plainCetYear(1_000_000, sim.installments.map((r) => r.amountCents), '2026-01-01', dues);
  assert.is(sim.cet.yearPercent, (Math.round(cetYear * 10_000) / 100).toFixed(2));
  assert.ok(Number(sim.cet.yearPercent) > 26.82);
});

test('fees: percent and fixed, upfront ones reduce the net released', () => {
  const sim = run({ fees: [{ key: 'a', name: 'Análise', percentBps: 150, financed: false }, { key: 'b', name: 'Cadastro', amountCents: 5_000, financed: false }] });
  assert.equal(sim.fees.map((f) => f.amountCents), [15_000, 5_000]);
  assert.is(sim.totals.netReleasedCents, 1_000_000 - 20_000);
  assert.is(sim.totals.principalCents, 1_000_000);
});

test('due dates move to the next business day over weekends and national holidays (Carnival counts)', () => {
  const sim = simulate({ ...base, termMonths: 3, firstDueDate: '2026-01-17', moveDueDatesToBusinessDay: true }, new BrazilHolidays(), IOF_RATES);
  // 2026-01-17 Saturday -> Monday 19; 2026-02-17 Carnival Tuesday -> Wednesday 18; 2026-03-17 Tuesday stays.
  assert.equal(sim.installments.map((r) => r.dueDate), ['2026-01-19', '2026-02-18', '2026-03-17']);
  const tiradentes = simulate({ ...base, termMonths: 1, releaseDate: '2026-03-25', firstDueDate: '2026-04-21', moveDueDatesToBusinessDay: true }, new BrazilHolidays(), IOF_RATES);
  assert.is(tiradentes.installments[0]!.dueDate, '2026-04-22');
});

test('holiday calendar: years load in any order and stay right (national, bank and movable days)', () => {
  const calendar = new BrazilHolidays();
  const is = (iso: string) => calendar.isHoliday(parseDay(iso)!);
  assert.ok(is('2030-12-25'));
  assert.ok(is('2027-02-09'), 'Carnival Tuesday 2027');
  assert.ok(is('2026-11-20'), 'Consciência Negra');
  assert.ok(is('2028-06-15'), 'Corpus Christi 2028');
  assert.not.ok(is('2026-02-18'), 'Ash Wednesday is a business day');
  assert.not.ok(is('2029-03-14'));
});

test.run();
