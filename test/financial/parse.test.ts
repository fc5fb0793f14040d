import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalLabel, matchLine } from '../../domain/financial/lines.ts';
import { readStatements } from '../../domain/financial/parse.ts';
import { parseAmount, parsePeriod, trailingPeriods } from '../../domain/financial/tokens.ts';
import { formatAmount, statementText, type Figures, type Layout } from '../support/financial-statements.ts';
import { seededProperties } from '../support/seed.ts';

const test = suite('financial statements: reading the text');
seededProperties(test, 'financial/parse');

test('amounts in the Brazilian format, negatives, dashes and the scale', () => {
  assert.is(parseAmount('1.234.567,89', 1), 123_456_789);
  assert.is(parseAmount('1234567,8', 1), 123_456_780);
  assert.is(parseAmount('(1.234)', 1000), -123_400_000);
  assert.is(parseAmount('-1.234', 1), -123_400);
  assert.is(parseAmount('1.234-', 1), -123_400);
  assert.is(parseAmount('-', 1), 0);
  assert.is(parseAmount('(1.234', 1), null);
  assert.is(parseAmount('1,2,3', 1), null);
  assert.is(parseAmount('12.34', 1), null, 'a dot groups thousands: 12.34 is no Brazilian amount');
  assert.is(parseAmount('99999999999999999', 1000), null, 'beyond the safe integer range');
});

test('periods: full dates, month/year, years, ranges and impossible dates', () => {
  assert.equal(parsePeriod('31/12/2024'), { end: '2024-12-31', fullDate: true });
  assert.equal(parsePeriod('30.06.2024'), { end: '2024-06-30', fullDate: true });
  assert.equal(parsePeriod('02/2024'), { end: '2024-02-29', fullDate: true });
  assert.equal(parsePeriod('2023'), { end: '2023-12-31', fullDate: false });
  assert.is(parsePeriod('31/02/2024'), null);
  assert.is(parsePeriod('1234'), null);
  const run = trailingPeriods('EXERCICIOS 01/01/2024 A 31/12/2024 01/01/2023 A 31/12/2023'.split(' '));
  assert.equal(
    run?.periods.map((p) => p.end),
    ['2024-12-31', '2023-12-31'],
  );
  assert.is(run?.start, 1);
});

test('labels: codes, sign markers, asides and "Total do" removed; whole-label matches only', () => {
  assert.is(canonicalLabel('2.1.03 (-) Total do Passivo e do Patrimônio Líquido:'), 'PASSIVO E PATRIMONIO LIQUIDO');
  assert.is(matchLine('Lucro (Prejuízo) Líquido do Exercício')?.key, 'netIncome');
  assert.is(matchLine('Ativo Não Circulante')?.key, 'nonCurrentAssets');
  assert.is(matchLine('Ativo Circulante')?.key, 'currentAssets');
  assert.is(matchLine('Receitas Financeiras'), null);
  assert.is(matchLine('(-) Custo das Mercadorias Vendidas')!.sign(-500), 500, 'expenses are kept positive');
  assert.is(matchLine('Prejuízo do exercício')!.sign(500), -500, 'a loss label makes the result negative');
});

test('a typical statement: title dates, R$ mil, notes, wrapped labels and side by side', () => {
  const read = readStatements(
    [
      'BALANÇOS PATRIMONIAIS EM 31 DE DEZEMBRO DE 2024 E 2023',
      '(Em milhares de reais)',
      'Ativo circulante 3 1.500 1.200 Passivo circulante 4 1.000 900',
      'Total do ativo 4.000 3.500 Patrimônio líquido 2.000 (150)',
      'Lucro (prejuízo) líquido do exercício',
      '300 (50)',
      'Outras receitas operacionais 10 20',
      '-- 1 of 1 --',
    ].join('\n'),
  );
  assert.equal(read.periods, ['2024-12-31', '2023-12-31']);
  assert.equal(read.values['2024-12-31'], { currentAssets: 150_000_000, currentLiabilities: 100_000_000, totalAssets: 400_000_000, equity: 200_000_000, netIncome: 30_000_000 });
  assert.equal(read.values['2023-12-31'], { currentAssets: 120_000_000, currentLiabilities: 90_000_000, totalAssets: 350_000_000, equity: -15_000_000, netIncome: -5_000_000 });
  assert.equal(read.unrecognized, ['OUTRAS RECEITAS OPERACIONAIS']);
});

test('without a header, or with fewer cells than columns, a line is listed as ambiguous', () => {
  assert.equal(readStatements('Ativo circulante 1.000').ambiguous, ['ATIVO CIRCULANTE']);
  assert.equal(readStatements('2024 2023\nAtivo circulante 1.000').ambiguous, ['ATIVO CIRCULANTE']);
  assert.equal(readStatements('2024 2023\nAtivo circulante 1.000 2.000').values['2023-12-31'], { currentAssets: 200_000 });
});

const cents = (scale: number) => fc.integer({ min: -5_000_000, max: 50_000_000 }).map((n) => n * (scale === 1 ? 1 : 100_000));
const layoutArb: fc.Arbitrary<Layout> = fc.record({
  dates: fc.constantFrom('full' as const, 'year' as const),
  scale: fc.constantFrom(1 as const, 1000 as const),
  negatives: fc.constantFrom('parens' as const, 'minus' as const),
  notes: fc.boolean(),
  codes: fc.boolean(),
  sideBySide: fc.boolean(),
});
const KEYS = [
  'currentAssets',
  'cash',
  'inventories',
  'nonCurrentAssets',
  'totalAssets',
  'currentLiabilities',
  'nonCurrentLiabilities',
  'equity',
  'totalLiabilitiesAndEquity',
  'grossRevenue',
  'netRevenue',
  'costOfSales',
  'grossProfit',
  'ebitda',
  'financialExpenses',
  'operatingResult',
  'netIncome',
] as const;
const EXPENSES = new Set(['costOfSales', 'financialExpenses']);

const statementArb = layoutArb.chain((layout) =>
  fc
    .tuple(fc.constant(layout), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 2005, max: 2030 }))
    .chain(([l, count, lastYear]) =>
      fc.tuple(
        fc.constant(l),
        fc.array(fc.record(Object.fromEntries(KEYS.map((k) => [k, cents(l.scale)])) as Record<(typeof KEYS)[number], fc.Arbitrary<number>>), { minLength: count, maxLength: count }),
        fc.constant(lastYear),
      ),
    ),
);

test('property: every figure printed in any layout is read back exactly, per period', () => {
  fc.assert(
    fc.property(statementArb, ([layout, periods, lastYear]) => {
      const figures: Figures = {};
      periods.forEach((values, i) => (figures[`${lastYear - i}-12-31`] = values));
      const read = readStatements(statementText(figures, layout));
      assert.equal(read.periods, Object.keys(figures));
      for (const [periodEnd, values] of Object.entries(figures)) {
        const expected = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, EXPENSES.has(k) ? Math.abs(v) : v]));
        assert.equal(read.values[periodEnd], expected);
      }
    }),
    { numRuns: 300 },
  );
});

test('property: formatted amounts parse back to the same cents', () => {
  fc.assert(
    fc.property(fc.integer({ min: -1e13, max: 1e13 }), fc.constantFrom('parens' as const, 'minus' as const), (value, negatives) => {
      assert.is(parseAmount(formatAmount(value, { scale: 1, negatives }), 1), value === 0 ? 0 : value);
    }),
  );
});

test('fuzz: any text is read without throwing, and nothing is invented from words alone', () => {
  fc.assert(
    fc.property(
      fc.string({ maxLength: 400 }),
      fc.array(fc.constantFrom('Ativo', 'Circulante', '2024', '1.000', '(', ')', '-', '31/12/2024', '\n', 'Lucro', 'Líquido', 'R$', 'mil'), { maxLength: 60 }),
      (noise, words) => {
        const read = readStatements(`${noise}\n${words.join(' ')}`);
        for (const values of Object.values(read.values)) for (const v of Object.values(values)) assert.ok(Number.isSafeInteger(v));
        assert.is(readStatements(noise.replace(/\d/g, '')).periods.length, 0);
      },
    ),
    { numRuns: 500 },
  );
});

test.run();
