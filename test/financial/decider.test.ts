import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { consolidate } from '../../domain/financial/analysis.ts';
import { readStatements } from '../../domain/financial/parse.ts';
import type { FinancialAnalysis } from '../../domain/financial/section.ts';
import { reportDecider, type ReportCommand } from '../../domain/report/decider.ts';
import type { ReportEvent } from '../../domain/report/events.ts';
import type { RecordFinancialExtraction } from '../../domain/report/extraction-decider.ts';
import { routeEvent } from '../../domain/webhook/routing.ts';
import { given } from '../support/decider.ts';
import { cnpjPolicy, testIds } from '../support/report.ts';

const test = suite('financial statements extraction (report decider)');
const ORG = 'org000000000000000000001';
const REPORT = 'rep000000000000000000001';
const AT = '2026-11-23T20:00:00.000Z';
const BATCH = 'bat000000000000000000001';
const FRESH_SECTION = 'sec999999999999999999999';

const request = (sections: string[]): ReportCommand => ({
  type: 'RequestReport',
  reportId: REPORT,
  organizationId: ORG,
  userId: 'usr000000000000000000001',
  document: { type: 'cnpj', digits: '11222333000181' },
  externalId: null,
  policy: cnpjPolicy({ sections: sections as never }),
  scrEnabled: true,
  sectionIds: testIds('sec', 14),
  inputs: {},
  at: AT,
});
const submit = (batchId: string): ReportCommand => ({
  type: 'SubmitFinancialStatements',
  organizationId: ORG,
  userId: 'usr000000000000000000002',
  batchId,
  via: 'MULTIPART',
  at: AT,
  files: [{ key: `financial/${ORG}/${REPORT}/${batchId}.pdf`, blobId: batchId, fileName: 'balanco.pdf', sizeBytes: 100, sha256: 'a'.repeat(64) }],
});
function history(sections: string[], batches = [BATCH]): ReportEvent[] {
  let events = given(reportDecider).when(request(sections)).decided();
  for (const batch of batches) events = [...events, ...given(reportDecider, events).when(submit(batch)).decided()];
  return events;
}

const analysis: FinancialAnalysis = {
  periods: consolidate([readStatements('31/12/2024\nAtivo circulante 1.000,00\nPassivo circulante 500,00\nPatrimônio líquido 700,00\nReceita líquida 4.000,00\nLucro líquido 400,00')]),
  files: [
    {
      key: 'k',
      fileName: 'balanco.pdf',
      sha256: 'a'.repeat(64),
      registryDocumentId: 'doc000000000000000000001',
      readable: true,
      textSource: 'TEXT',
      ocrConfidence: null,
      ocrProblem: null,
      periods: ['2024-12-31'],
      unrecognizedLines: [],
      ambiguousLines: [],
    },
  ],
  model: null,
};
const record = (outcome: RecordFinancialExtraction['outcome'], batchId = BATCH): ReportCommand => ({
  type: 'RecordFinancialExtraction',
  batchId,
  attempt: 2,
  sectionId: FRESH_SECTION,
  outcome,
  at: AT,
});
const done = record({ kind: 'DONE', analysis, registryId: 'reg000000000000000000001' });

test("DONE fills the report's own BALANCE_SHEET section and records the extraction with the webhook's fields", () => {
  const past = history(['BASIC_INFORMATION', 'BALANCE_SHEET']);
  const [section, extracted, ...rest] = given(reportDecider, past).when(done).decided();
  assert.is(rest.length, 0);
  assert.is(section!.type, 'ReportSectionUpdated');
  const s = (section as Extract<ReportEvent, { type: 'ReportSectionUpdated' }>).data;
  assert.equal([s.sectionType, s.outcome, s.selectedIntegrations, s.integrationCount], ['BALANCE_SHEET', 'DONE', ['FINANCIAL_STATEMENTS'], 1]);
  assert.is(s.sectionId, 'sec000000000000000000002', 'the id the report gave its BALANCE_SHEET');
  assert.equal(
    [s.details!.referenceYear, s.details!.revenueCents, s.details!.netIncomeCents, s.details!.equityCents, s.details!.totalAssetsCents, s.details!.totalLiabilitiesCents],
    [2024, 400_000, 40_000, 70_000, null, null],
  );
  assert.equal(
    (s.details!.unread as Array<{ key: string }>).map((u) => u.key),
    ['nonCurrentAssets', 'totalAssets', 'nonCurrentLiabilities', 'grossProfit', 'operatingResult'],
  );
  const e = (extracted as Extract<ReportEvent, { type: 'FinancialStatementsExtracted' }>).data;
  assert.equal(routeEvent('FinancialStatementsExtracted', e as never), {
    publicName: 'registry.financial.extracted',
    legacyType: undefined,
    data: {
      registryId: 'reg000000000000000000001',
      registryDocumentId: 'doc000000000000000000001',
      attempt: 2,
      periodCount: 1,
      latestPeriodAt: '2024-12-31T00:00:00.000Z',
      periods: [{ periodEnd: '2024-12-31', values: analysis.periods[0]!.values, ratios: analysis.periods[0]!.ratios, missing: analysis.periods[0]!.missing }],
    },
  });
  assert.equal(
    given(reportDecider, [...past, section!, extracted!])
      .when(done)
      .decided(),
    [],
    'a replayed outcome appends nothing',
  );
});

test('a policy without BALANCE_SHEET: the first extraction creates the section, the next batch reuses it', () => {
  const past = history(['BASIC_INFORMATION'], [BATCH, 'bat000000000000000000002']);
  const first = given(reportDecider, past).when(done).decided();
  assert.is((first[0] as Extract<ReportEvent, { type: 'ReportSectionUpdated' }>).data.sectionId, FRESH_SECTION);
  const second = given(reportDecider, [...past, ...first])
    .when({ ...(record({ kind: 'ERROR', code: 'INTEGRATION_NO_DATA', reason: 'nada' }, 'bat000000000000000000002') as object), sectionId: 'sec888888888888888888888' } as ReportCommand)
    .decided();
  const s = (second[0] as Extract<ReportEvent, { type: 'ReportSectionUpdated' }>).data;
  assert.equal(
    [s.sectionId, s.outcome, s.details, s.errors.map((e) => [e.code, e.message, e.integrationType])],
    [FRESH_SECTION, 'ERROR', null, [['INTEGRATION_NO_DATA', 'nada', 'FINANCIAL_STATEMENTS']]],
  );
  assert.equal(second[1]!.type, 'FinancialStatementsExtractionFailed');
  assert.is(routeEvent(second[1]!.type, second[1]!.data as never), null, 'a failure is no registry.financial.extracted');
});

test('a batch never submitted to the report is a programming error, not an outcome', () => {
  assert.throws(
    () =>
      given(reportDecider, history(['BALANCE_SHEET']))
        .when(record({ kind: 'ERROR', code: 'INTEGRATION_NO_DATA', reason: 'x' }, 'bat000000000000000000009'))
        .decided(),
    /never submitted/,
  );
});

test('no registered file: the extraction names no registry and sends no webhook', () => {
  const unregistered = { ...analysis, files: analysis.files.map((f) => ({ ...f, registryDocumentId: null })) };
  const [, extracted] = given(reportDecider, history(['BALANCE_SHEET']))
    .when(record({ kind: 'DONE', analysis: unregistered, registryId: 'reg000000000000000000001' }))
    .decided();
  const e = (extracted as Extract<ReportEvent, { type: 'FinancialStatementsExtracted' }>).data;
  assert.equal([e.registryId, e.registryDocumentId, e.registryDocumentIds], [null, null, []]);
  assert.is(routeEvent('FinancialStatementsExtracted', e as never), null);
});

test('each try begun is numbered by the report, across processes; a batch with an outcome begins none', () => {
  const past = history(['BALANCE_SHEET']);
  const begin: ReportCommand = { type: 'BeginFinancialExtractionAttempt', batchId: BATCH, at: AT };
  const first = given(reportDecider, past).when(begin).decided();
  const second = given(reportDecider, [...past, ...first])
    .when(begin)
    .decided();
  assert.equal(
    [...first, ...second].map((e) => [e.type, (e.data as { attempt: number }).attempt]),
    [
      ['FinancialStatementsExtractionAttempted', 1],
      ['FinancialStatementsExtractionAttempted', 2],
    ],
  );
  const ended = [
    ...past,
    ...first,
    ...given(reportDecider, [...past, ...first])
      .when(done)
      .decided(),
  ];
  given(reportDecider, ended).when(begin).then([]);
});

test.run();
