import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reportDecider, type ReportCommand } from '../../domain/report/decider.ts';
import type { ReportEvent } from '../../domain/report/events.ts';
import type { SubmittedFinancialFile } from '../../domain/report/financial-events.ts';
import { FinancialUploadMessages } from '../../domain/financial-upload/messages.ts';
import { cpfPolicy, testIds } from '../support/report.ts';
import { given } from '../support/decider.ts';

const test = suite('financial statements submission (report decider)');
const ORG = 'org000000000000000000001';
const REPORT = 'rep000000000000000000001';
const AT = '2026-11-23T20:00:00.000Z';

const requested = given(reportDecider)
  .when({
    type: 'RequestReport',
    reportId: REPORT,
    organizationId: ORG,
    userId: 'usr000000000000000000001',
    document: { type: 'cpf', digits: '12345678909' },
    externalId: null,
    policy: cpfPolicy(),
    scrEnabled: true,
    sectionIds: testIds('sec', 12),
    inputs: {},
    at: AT,
  })
  .decided();

const file = (n: number): SubmittedFinancialFile => {
  const blobId = `blob0000000000000000000${n}`;
  return { key: `financial/${ORG}/${REPORT}/${blobId}.pdf`, blobId, fileName: `balanco-${n}.pdf`, sizeBytes: 1000 + n, sha256: String(n).repeat(64) };
};
const submit = (files: SubmittedFinancialFile[], patch: Partial<ReportCommand> = {}): ReportCommand =>
  ({ type: 'SubmitFinancialStatements', organizationId: ORG, userId: 'usr000000000000000000002', batchId: 'bat000000000000000000001', files, via: 'PRESIGNED', at: AT, ...patch }) as ReportCommand;

test('a batch becomes one FinancialStatementsSubmitted with the report facts, files in order', () => {
  const [event, ...rest] = given(reportDecider, requested)
    .when(submit([file(2), file(1)]))
    .decided();
  assert.is(rest.length, 0);
  assert.is(event!.type, 'FinancialStatementsSubmitted');
  const data = (event as Extract<ReportEvent, { type: 'FinancialStatementsSubmitted' }>).data;
  assert.is(data.organizationId, ORG);
  assert.is(data.reportId, REPORT);
  assert.is(data.batchId, 'bat000000000000000000001');
  assert.is(data.via, 'PRESIGNED');
  assert.is(data.submittedAt, AT);
  assert.is(data.userId, 'usr000000000000000000002');
  assert.equal(data.files, [file(2), file(1)]);
});

test('a retried batch (every key already submitted) appends nothing; one new key makes a new batch of all', () => {
  const first = given(reportDecider, requested)
    .when(submit([file(1), file(2)]))
    .decided();
  given(reportDecider, [...requested, ...first])
    .when(submit([file(2), file(1)], { batchId: 'bat000000000000000000002' }))
    .then([]);
  const [again] = given(reportDecider, [...requested, ...first])
    .when(submit([file(1), file(3)], { batchId: 'bat000000000000000000002' }))
    .decided();
  assert.equal((again as Extract<ReportEvent, { type: 'FinancialStatementsSubmitted' }>).data.files, [file(1), file(3)]);
});

test("another organization's report, or none, is not found", () => {
  given(reportDecider, requested)
    .when(submit([file(1)], { organizationId: 'org000000000000000000009' }))
    .thenError('not_found', FinancialUploadMessages.reportNotFound);
  given(reportDecider)
    .when(submit([file(1)]))
    .thenError('not_found', FinancialUploadMessages.reportNotFound);
});

test('the state keeps each key with its first batch', () => {
  const first = given(reportDecider, requested)
    .when(submit([file(1)]))
    .decided();
  const second = given(reportDecider, [...requested, ...first])
    .when(submit([file(1), file(2)], { batchId: 'bat000000000000000000002' }))
    .decided();
  const { state } = given(reportDecider, [...requested, ...first, ...second]);
  assert.equal(state.financialKeys, { [file(1).key]: 'bat000000000000000000001', [file(2).key]: 'bat000000000000000000002' });
});

test.run();
