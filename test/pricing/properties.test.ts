import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatDay, NO_HOLIDAYS } from '../../domain/pricing/calendar.ts';
import { IOF_RATES } from '../../domain/pricing/iof.ts';
import { simulate, type SimulationInput } from '../../domain/pricing/simulate.ts';
import { seededProperties } from '../support/seed.ts';

const test = suite('pricing: properties');
seededProperties(test, 'pricing/properties');

const day0 = 20_454; // 2026-01-01
const input = fc.record({
  amountCents: fc.integer({ min: 10_000, max: 500_000_000 }),
  termMonths: fc.integer({ min: 1, max: 360 }),
  monthlyHundredths: fc.integer({ min: 0, max: 800 }),
  model: fc.constantFrom('PRICE' as const, 'SAC' as const),
  entityType: fc.constantFrom('PERSON' as const, 'COMPANY' as const),
  releaseOffset: fc.integer({ min: 0, max: 2000 }),
  firstPeriod: fc.integer({ min: 1, max: 180 }),
  iofApplies: fc.boolean(),
  iofFinanced: fc.boolean(),
  feeBps: fc.integer({ min: 0, max: 300 }),
  feeFinanced: fc.boolean(),
});

type Drawn = typeof input extends fc.Arbitrary<infer T> ? T : never;
const toInput = (v: Drawn): SimulationInput => ({
  amountCents: v.amountCents,
  termMonths: v.termMonths,
  rate: { kind: 'FIXED', rate: { value: (v.monthlyHundredths / 100).toFixed(2), period: 'MONTH' } },
  model: v.model,
  entityType: v.entityType,
  simplesNacional: false,
  releaseDate: formatDay(day0 + v.releaseOffset),
  firstDueDate: formatDay(day0 + v.releaseOffset + v.firstPeriod),
  fees: v.feeBps ? [{ key: 'f', name: 'Tarifa', percentBps: v.feeBps, financed: v.feeFinanced }] : [],
  iof: { applies: v.iofApplies, financed: v.iofFinanced },
  moveDueDatesToBusinessDay: false,
});

test('principal amortizations sum to the principal; installments to principal plus interest; the balance ends at 0', () => {
  fc.assert(
    fc.property(input, (v) => {
      const sim = simulate(toInput(v), NO_HOLIDAYS, IOF_RATES);
      const sum = (f: (r: (typeof sim.installments)[number]) => number) => sim.installments.reduce((s, r) => s + f(r), 0);
      assert.is(
        sum((r) => r.principalCents),
        sim.totals.principalCents,
      );
      assert.is(
        sum((r) => r.amountCents),
        sim.totals.principalCents + sim.totals.interestCents,
      );
      assert.is(sim.installments.at(-1)!.balanceCents, 0);
      assert.ok(sim.installments.every((r) => r.principalCents >= 0 && r.interestCents >= 0));
    }),
    { numRuns: 300 },
  );
});

/**
 * "CET >= the nominal rate" read on the operation's own calendar: the nominal rate charged over
 * these exact due dates is the CET of the same operation without IOF and fees (a 31-day month at
 * a monthly rate is cheaper than 365/12 days, so the bare yearly figure is not the bar).
 */
test('CET with IOF or fees is at least the nominal rate on the same dates (the CET without them)', () => {
  fc.assert(
    fc.property(
      input.filter((v) => v.iofApplies || v.feeBps > 0),
      (v) => {
        const sim = simulate(toInput(v), NO_HOLIDAYS, IOF_RATES);
        const bare = simulate({ ...toInput(v), fees: [], iof: { applies: false, financed: false } }, NO_HOLIDAYS, IOF_RATES);
        assert.ok(Number(sim.cet.yearPercent) >= Number(bare.cet.yearPercent), `${sim.cet.yearPercent} < ${bare.cet.yearPercent}`);
        assert.ok(Number(sim.cet.monthPercent) >= Number(bare.cet.monthPercent));
      },
    ),
    { numRuns: 300 },
  );
});

test('financed IOF: the net released is exactly the amount asked less upfront fees', () => {
  fc.assert(
    fc.property(
      input.map((v) => ({ ...v, iofApplies: true, iofFinanced: true })),
      (v) => {
        const sim = simulate(toInput(v), NO_HOLIDAYS, IOF_RATES);
        const upfront = sim.fees.filter((f) => !f.financed).reduce((s, f) => s + f.amountCents, 0);
        const financed = sim.totals.feesCents - upfront;
        assert.is(sim.totals.netReleasedCents, v.amountCents - upfront);
        assert.ok(sim.totals.principalCents - sim.totals.iofCents >= v.amountCents + financed);
      },
    ),
    { numRuns: 200 },
  );
});

test.run();
