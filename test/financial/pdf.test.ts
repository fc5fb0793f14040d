import { readPdfText } from '../../platform/pdf-text.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { consolidate, gapsOf } from '../../domain/financial/analysis.ts';
import { readStatements } from '../../domain/financial/parse.ts';
import { KNOWN, PLAIN_LAYOUT, pdfkitStatements, pdfLibStatements, type Figures, type Layout } from '../support/financial-statements.ts';

const test = suite('financial statements: real PDFs');

async function textOf(bytes: Buffer): Promise<string> {
  const read = await readPdfText(bytes);
  assert.ok(read, 'pdf.js reads the PDF');
  return read.text;
}

const LAYOUTS: Array<[string, Layout]> = [
  ['plain, reais, full dates', PLAIN_LAYOUT],
  ['R$ mil, years, notes column, minus signs', { ...PLAIN_LAYOUT, dates: 'year', scale: 1000, notes: true, negatives: 'minus' }],
  ['account codes, side-by-side balance sheet', { ...PLAIN_LAYOUT, codes: true, sideBySide: true }],
  ['side-by-side, R$ mil, notes, years', { dates: 'year', scale: 1000, negatives: 'parens', notes: true, codes: false, sideBySide: true }],
];

for (const [name, layout] of LAYOUTS) {
  for (const [maker, make] of [
    ['pdfkit', pdfkitStatements],
    ['pdf-lib', pdfLibStatements],
  ] as const) {
    test(`${maker}: ${name}: every line of both years read`, async () => {
      const read = readStatements(await textOf(await make(KNOWN, layout)));
      assert.equal(read.periods, ['2024-12-31', '2023-12-31']);
      assert.equal(read.values, KNOWN);
      assert.equal(read.ambiguous, []);
    });
  }
}

test('three years over two files: the batch becomes one analysis, newest first, ratios per period', async () => {
  const { ['2024-12-31']: y2024, ['2023-12-31']: y2023 } = KNOWN;
  const older: Figures = { '2023-12-31': { ...y2023!, netIncome: 999_900_000 }, '2022-12-31': { ...y2023!, netRevenue: 400_000_000 } };
  const files = [
    readStatements(await textOf(await pdfkitStatements({ '2024-12-31': y2024!, '2023-12-31': y2023! }, PLAIN_LAYOUT))),
    readStatements(await textOf(await pdfLibStatements(older, PLAIN_LAYOUT))),
  ];
  const periods = consolidate(files);
  assert.equal(
    periods.map((p) => [p.periodEnd, p.files]),
    [
      ['2024-12-31', [0]],
      ['2023-12-31', [0, 1]],
      ['2022-12-31', [1]],
    ],
  );
  assert.is(periods[1]!.values.netIncome, -5_000_000, 'the first file of the batch wins a line both print');
  assert.equal(periods[0]!.ratios, {
    liquidezCorrente: 1.5,
    liquidezSeca: 1.1,
    liquidezGeral: 0.75,
    endividamentoGeral: 0.5,
    endividamentoSobrePL: 1,
    margemBruta: 0.4545,
    margemOperacional: 0.1091,
    margemEbitda: 0.1636,
    margemLiquida: 0.0545,
    roe: 0.15,
  });
  assert.equal(periods[0]!.missing, ['longTermReceivables']);
});

test('what the text lacks is derived when the statements allow it, listed otherwise, and the model fills the rest', () => {
  const read = readStatements('31/12/2024\nAtivo circulante 100,00\nAtivo não circulante 50,00\nPassivo circulante 40,00\nPatrimônio líquido 60,00\nReceita líquida 200,00\nCusto das vendas (120,00)');
  const [period] = consolidate([read]);
  assert.equal(period!.values, {
    currentAssets: 10_000,
    nonCurrentAssets: 5_000,
    totalAssets: 15_000,
    currentLiabilities: 4_000,
    nonCurrentLiabilities: 5_000,
    equity: 6_000,
    totalLiabilitiesAndEquity: 15_000,
    netRevenue: 20_000,
    costOfSales: 12_000,
    grossProfit: 8_000,
  });
  assert.is(period!.sources.nonCurrentLiabilities, 'DERIVED');
  assert.equal(
    gapsOf([period!]).map((g) => g.key),
    ['operatingResult', 'netIncome'],
  );
  const [filled] = consolidate(
    [read],
    [
      { periodEnd: '2024-12-31', key: 'netIncome', cents: 1_000 },
      { periodEnd: '2020-12-31', key: 'netIncome', cents: 1 },
      { periodEnd: '2024-12-31', key: 'currentAssets', cents: 1 },
    ],
  );
  assert.is(filled!.values.netIncome, 1_000);
  assert.is(filled!.sources.netIncome, 'MODEL');
  assert.is(filled!.values.currentAssets, 10_000, 'the model never overwrites what the text printed');
  assert.is(filled!.ratios.roe, 0.1667);
});

test.run();
