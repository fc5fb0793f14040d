import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_HOLIDAYS, parseDay } from '../../domain/pricing/calendar.ts';
import { IOF_RATES } from '../../domain/pricing/iof.ts';
import { simulate, type SimulationInput } from '../../domain/pricing/simulate.ts';
import { BrazilHolidays } from '../../application/pricing/holidays.ts';
import { daysBetween, percentOf, plainCetYear, plainDueDates, plainFirstPeriodRate, plainIof, plainPriceRows, pricePayment } from './reference.ts';

const test = suite('pricing: worked examples against a second implementation');

const base: SimulationInput = {
  amountCents: 1_000_000,
  termMonths: 24,
  rate: { kind: 'FIXED', rate: { value: '2', period: 'MONTH' } },
  model: 'PRICE',
  entityType: 'PERSON',
  simplesNacional: false,
  // One calendar month apart: the first period is one plain month (2026-01-31 keeps the month-end clamp in view).
  releaseDate: '2025-12-31',
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
  assert.equal(
    sim.installments.map((r) => r.dueDate),
    plainDueDates('2026-01-31', 24),
  );
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

test('the issue example: released 2030-01-15, first due 2030-02-15 (31 days) is one plain month', () => {
  const example = { releaseDate: '2030-01-15', firstDueDate: '2030-02-15' };
  const price = run(example);
  const dues = plainDueDates('2030-02-15', 24);
  const pmt = Math.round(pricePayment(1_000_000, 0.02, 24));
  assert.is(pmt, 52_871);
  assert.is(price.installments[0]!.amountCents, pmt);
  const interest = plainPriceRows(1_000_000, 0.02, 0.02, 24).reduce((s, r) => s + r.interest, 0);
  assert.is(interest, 268_907);
  assert.is(price.totals.interestCents, interest);
  assert.is(run({ ...example, model: 'SAC' }).installments[0]!.amountCents, Math.round(1_000_000 / 24) + Math.round(1_000_000 * 0.02));
  assert.is(run({ ...example, model: 'SAC' }).installments[0]!.amountCents, 61_667);
  const bareCet = plainCetYear(
    1_000_000,
    price.installments.map((r) => r.amountCents),
    '2030-01-15',
    dues,
  );
  assert.is(percentOf(bareCet), '26.89');
  assert.is(price.cet.yearPercent, '26.89');
  const withIof = run({ ...example, iof: { applies: true, financed: false } });
  const iof = plainIof(
    withIof.installments.map((r) => r.principalCents),
    '2030-01-15',
    dues,
    0.000082,
    0.0038,
  ).reduce((a, b) => a + b, 0);
  const iofCet = plainCetYear(
    1_000_000 - iof,
    withIof.installments.map((r) => r.amountCents),
    '2030-01-15',
    dues,
  );
  assert.is(percentOf(iofCet), '30.71');
  assert.is(withIof.cet.yearPercent, '30.71');
});

test('first period off a calendar month: only the days beyond (45 days) or short of it (20 days) are pro rata', () => {
  for (const [firstDueDate, days, exponent] of [
    ['2030-03-01', 45, 1 + 14 / 30],
    ['2030-02-04', 20, 1 - 11 / 30],
  ] as const) {
    assert.is(daysBetween('2030-01-15', firstDueDate), days);
    const first = plainFirstPeriodRate(0.02, '2030-01-15', firstDueDate);
    assert.ok(Math.abs(first - (Math.pow(1.02, exponent) - 1)) < 1e-15, firstDueDate);
    const sac = run({ model: 'SAC', releaseDate: '2030-01-15', firstDueDate });
    assert.is(sac.installments[0]!.interestCents, Math.round(1_000_000 * first), firstDueDate);
    assert.is(sac.installments[1]!.interestCents, Math.round((1_000_000 - 41_667) * 0.02), `${firstDueDate}: later periods are plain months`);
    const price = run({ releaseDate: '2030-01-15', firstDueDate });
    const rows = plainPriceRows(1_000_000, 0.02, first, 24);
    assert.equal(
      price.installments.map((r) => [r.interestCents, r.principalCents]),
      rows.map((r) => [r.interest, r.principal]),
      firstDueDate,
    );
  }
  // A month-end release: one month after 2030-01-31 is 2030-02-28 (28 days), still one plain month.
  assert.is(run({ releaseDate: '2030-01-31', firstDueDate: '2030-02-28' }).installments[0]!.amountCents, 52_871);
});

test('IOF PF upfront: 0.0082% a day capped at 365 days plus 0.38%, on each amortization; CET from the net released', () => {
  const sim = run({ model: 'SAC', termMonths: 18, iof: { applies: true, financed: false } });
  const dues = plainDueDates('2026-01-31', 18);
  const iof = plainIof(
    sim.installments.map((r) => r.principalCents),
    '2025-12-31',
    dues,
    0.000082,
    0.0038,
  );
  assert.equal(
    sim.installments.map((r) => r.iofCents),
    iof,
  );
  assert.ok(daysBetween('2025-12-31', dues[17]!) > 365, 'the cap is exercised');
  const total = iof.reduce((a, b) => a + b, 0);
  assert.is(sim.iof!.totalCents, total);
  assert.is(sim.totals.netReleasedCents, 1_000_000 - total);
  const year = plainCetYear(
    1_000_000 - total,
    sim.installments.map((r) => r.amountCents),
    '2025-12-31',
    dues,
  );
  assert.is(sim.cet.yearPercent, percentOf(year));
  assert.is(sim.cet.monthPercent, percentOf(Math.pow(1 + year, 1 / 12) - 1));
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
  assert.is(
    iofCents,
    plainIof(
      sim.installments.map((r) => r.principalCents),
      '2025-12-31',
      dues,
      0.000082,
      0.0038,
    ).reduce((a, b) => a + b, 0),
  );
  const cetYear = plainCetYear(
    1_000_000,
    sim.installments.map((r) => r.amountCents),
    '2025-12-31',
    dues,
  );
  assert.is(sim.cet.yearPercent, percentOf(cetYear));
  assert.ok(Number(sim.cet.yearPercent) > 26.82);
});

test('fees: percent and fixed, upfront ones reduce the net released', () => {
  const sim = run({
    fees: [
      { key: 'a', name: 'Análise', percentBps: 150, financed: false },
      { key: 'b', name: 'Cadastro', amountCents: 5_000, financed: false },
    ],
  });
  assert.equal(
    sim.fees.map((f) => f.amountCents),
    [15_000, 5_000],
  );
  assert.is(sim.totals.netReleasedCents, 1_000_000 - 20_000);
  assert.is(sim.totals.principalCents, 1_000_000);
});

test('due dates move to the next business day over weekends and national holidays (Carnival counts)', () => {
  const sim = simulate({ ...base, termMonths: 3, firstDueDate: '2026-01-17', moveDueDatesToBusinessDay: true }, new BrazilHolidays(), IOF_RATES);
  // 2026-01-17 Saturday -> Monday 19; 2026-02-17 Carnival Tuesday -> Wednesday 18; 2026-03-17 Tuesday stays.
  assert.equal(
    sim.installments.map((r) => r.dueDate),
    ['2026-01-19', '2026-02-18', '2026-03-17'],
  );
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
