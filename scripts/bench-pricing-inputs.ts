/**
 * The simulations bench:pricing asks for, shared by its in-process phase, its bare server and its
 * client process: amount, rate, dates, model and entity type all move from one call to the next
 * (a cache keyed on any one of them would not help), and the term too unless it is given.
 */
import type { SimulationInput } from '../domain/pricing/simulate.ts';

/** The terms the HTTP phase cycles through; the in-process verdict is on 360 months. */
export const TERMS = [360, 300, 240, 180];

const plusDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

export function simulationBody(i: number, termMonths = TERMS[i % TERMS.length]!) {
  const releaseDate = plusDays('2026-11-23', i % 97);
  return {
    amountCents: 5_000_000 + (i % 1000) * 137,
    termMonths,
    entityType: i % 5 ? ('PERSON' as const) : ('COMPANY' as const),
    releaseDate,
    // 20 to 60 days: the first period moves the schedule's dates and the CET's day counts.
    firstDueDate: plusDays(releaseDate, 20 + (i % 41)),
    model: (i >> 1) % 2 ? ('SAC' as const) : ('PRICE' as const),
    rate: { value: (0.89 + (i % 161) / 100).toFixed(2), period: 'MONTH' as const },
    fees: [{ key: 'tac', name: 'Tarifa de cadastro', amountCents: 15_000, financed: true }],
    iof: { applies: true, financed: true },
    moveDueDatesToBusinessDay: true,
  };
}

/** The body as domain/pricing's simulate() takes it (what the route makes of it, minus the lookups). */
export const inputOf = (body: ReturnType<typeof simulationBody>): SimulationInput => ({
  ...body,
  rate: { kind: 'FIXED', rate: body.rate },
  simplesNacional: false,
});
