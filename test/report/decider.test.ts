import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testSectionDetails } from '../support/screening.ts';
import { RAN_WITHOUT_SCR_REASON, reportDecider, type ReportCommand } from '../../domain/report/decider.ts';
import type { ReportEvent } from '../../domain/report/events.ts';
import type { SectionResult, SourceSectionType } from '../../domain/report/sections.ts';
import { fold } from '../../domain/shared/decider.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { cnpjPolicy, cpfPolicy, testIds } from '../support/report.ts';
import { given } from '../support/decider.ts';

const test = suite('report decider');
const ORG = 'org000000000000000000001';
const AT = '2026-03-01T12:00:00.000Z';
const LATER = '2026-03-01T12:00:01.000Z';
const policy = cpfPolicy();

const request = (patch: Partial<Extract<ReportCommand, { type: 'RequestReport' }>> = {}): ReportCommand => ({
  type: 'RequestReport',
  reportId: 'rep000000000000000000001',
  organizationId: ORG,
  userId: 'usr000000000000000000001',
  document: { type: 'cpf', digits: '12345678909' },
  externalId: 'ext-1',
  policy,
  scrEnabled: true,
  sectionIds: testIds('sec', 12),
  inputs: {},
  at: AT,
  ...patch,
});
const decide = (past: readonly ReportEvent[], command: ReportCommand) => given(reportDecider, past).when(command).decided();
const requested = (patch = {}) => decide([], request(patch));
const ok = (sectionType: SourceSectionType): SectionResult => ({
  sectionType,
  outcome: 'DONE',
  details: testSectionDetails(sectionType, { document: { type: 'cpf', digits: '12345678909' }, behaviour: 'APPROVE', now: new Date(AT) }),
  selectedIntegrations: ['SANDBOX'],
  errors: [],
  integrationCount: 1,
});
const record = (results: SectionResult[]): ReportCommand => ({ type: 'RecordSectionResults', results, policy, at: LATER });
function finished(): ReportEvent[] {
  const past = requested();
  return [...past, ...decide(past, record(policy.sections.map(ok)))];
}

test('request: PENDING facts, every section with its id, the policy version kept', () => {
  const [event] = requested();
  assert.is(event!.type, 'ReportRequested');
  const data = event!.data as Extract<ReportEvent, { type: 'ReportRequested' }>['data'];
  assert.is(data.status, 'PENDING');
  assert.is(data.policyStatus, 'PENDING');
  assert.is(data.score, null);
  assert.is(data.externalId, 'ext-1');
  assert.is(data.yearMonthDay, 20260301);
  assert.is(data.policyVersion, 1);
  assert.is(data.policyName, policy.name);
  assert.equal(
    data.sections.map((s) => s.type),
    ['SUMMARY', ...policy.sections, 'CREDIT_POLICY'],
  );
  assert.is(new Set(data.sections.map((s) => s.id)).size, data.sections.length);
  assert.is(data.ranWithoutSCRReason, null);
});

test('without the scr module, SCR is not queried and the reason is recorded', () => {
  const data = requested({ scrEnabled: false })[0]!.data as Extract<ReportEvent, { type: 'ReportRequested' }>['data'];
  assert.not.ok(data.sections.some((s) => s.type === 'SCR'));
  assert.equal(data.skippedSections, ['SCR']);
  assert.is(data.ranWithoutSCRReason, RAN_WITHOUT_SCR_REASON);
});

test('a policy of the other document type is refused', () => {
  given(reportDecider, [])
    .when(request({ policy: cnpjPolicy() }))
    .thenError('unprocessable', Messages.policyOtherDocumentType);
});

test('start processing once', () => {
  const past = requested();
  const started = decide(past, { type: 'StartProcessing', at: LATER });
  assert.is(started[0]!.type, 'ReportProcessingStarted');
  assert.is(started[0]!.data.status, 'PROCESSING');
  given(reportDecider, [...past, ...started])
    .when({ type: 'StartProcessing', at: LATER })
    .then([]);
});

test('sections are recorded once each; a repeated result is ignored; the first results start the report', () => {
  const past = requested();
  const first = decide(past, record([ok('PROTESTS'), ok('PROTESTS')]));
  assert.equal(
    first.map((e) => e.type),
    ['ReportProcessingStarted', 'ReportSectionUpdated'],
  );
  assert.is(first[1]!.data.status, 'PROCESSING');
  given(reportDecider, [...past, ...first])
    .when(record([ok('PROTESTS')]))
    .then([]);
  const more = decide([...past, ...first], record([ok('PEFIN')]));
  assert.equal(
    more.map((e) => e.type),
    ['ReportSectionUpdated'],
    'started once',
  );
});

test('the last source finishes the report and records the decision in the same append', () => {
  const events = finished().slice(1);
  assert.equal(
    events.slice(-5).map((e) => e.type),
    ['ReportSourcesFinished', 'ReportSectionUpdated', 'ReportSectionUpdated', 'CreditPolicyEvaluated', 'ReportDecided'],
  );
  const decided = events.at(-1)!.data as Extract<ReportEvent, { type: 'ReportDecided' }>['data'];
  assert.is(decided.decision, 'APPROVED');
  assert.is(decided.kind, 'AUTOMATIC');
  assert.is(decided.status, 'APPROVED');
  assert.is(decided.policyStatus, 'APPROVED');
  assert.is(decided.score, 750);
  const creditPolicy = events.find((e) => e.type === 'ReportSectionUpdated' && e.data.sectionType === 'CREDIT_POLICY')!;
  assert.is((creditPolicy.data as unknown as { details: { decision: string } }).details.decision, 'APPROVED');
  // After the decision nothing more is recorded from sources.
  given(reportDecider, finished())
    .when(record([ok('PROTESTS')]))
    .then([]);
});

test('results are decided under the version the report names, never another', () => {
  assert.throws(() => decide(requested(), { type: 'RecordSectionResults', results: [], policy: cpfPolicy({ version: 2 }), at: LATER }), /not the one given/);
});

test('manual analysis: only after the decision, once; redo only after a first one', () => {
  const analyze = (kind: 'MANUAL_ANALYSIS' | 'MANUAL_REANALYSIS', approved: boolean, analystId: string): Extract<ReportCommand, { type: 'RecordManualAnalysis' }> => ({
    type: 'RecordManualAnalysis',
    kind,
    organizationId: ORG,
    analystId,
    analystName: `Analyst ${analystId}`,
    approved,
    commentary: `by ${analystId}`,
    at: LATER,
  });
  given(reportDecider, requested())
    .when(analyze('MANUAL_ANALYSIS', true, 'a1'))
    .thenError('conflict', Messages.reportStillProcessing);
  given(reportDecider, finished())
    .when(analyze('MANUAL_REANALYSIS', false, 'a1'))
    .thenError('conflict', Messages.manualAnalysisMissing);
  const first = decide(finished(), analyze('MANUAL_ANALYSIS', true, 'a1'));
  assert.is(first[0]!.type, 'ReportDecided');
  assert.is(first[0]!.data.status, 'APPROVED');
  const afterFirst = [...finished(), ...first];
  given(reportDecider, afterFirst)
    .when(analyze('MANUAL_ANALYSIS', true, 'a2'))
    .thenError('conflict', Messages.manualAnalysisExists);
  const redo = decide(afterFirst, analyze('MANUAL_REANALYSIS', false, 'a2'));
  const data = redo[0]!.data as Extract<ReportEvent, { type: 'ReportDecided' }>['data'];
  assert.is(data.decision, 'DENIED');
  assert.is(data.status, 'DENIED');
  assert.is(data.analystId, 'a2');
  assert.is(data.previousAnalystId, 'a1');
  assert.is(data.commentary, 'by a2');
  assert.is(data.kind, 'MANUAL_REANALYSIS');
  assert.is(data.score, 750, 'the policy score stays');
  given(reportDecider, afterFirst)
    .when({ ...analyze('MANUAL_REANALYSIS', false, 'a2'), organizationId: 'org000000000000000000009' })
    .thenError('not_found', Messages.reportNotFound);
});

test('export only once finished; failures are recorded too', () => {
  const exportCommand: ReportCommand = {
    type: 'RecordExport',
    organizationId: ORG,
    userId: 'u',
    format: 'pdf',
    blobId: 'b',
    fileName: 'f.pdf',
    contentType: 'application/pdf',
    sizeBytes: 10,
    url: 'http://x',
    urlExpiresAt: LATER,
    at: LATER,
  };
  given(reportDecider, requested()).when(exportCommand).thenError('conflict', Messages.reportStillProcessing);
  assert.is(decide(finished(), exportCommand)[0]!.type, 'ReportExported');
  const failed = decide(finished(), { type: 'RecordExportFailure', organizationId: ORG, userId: 'u', format: 'xlsx', reason: 'boom', at: LATER });
  assert.is(failed[0]!.type, 'ReportExportFailed');
});

test('every event carries the report facts', () => {
  const keys = ['reportId', 'organizationId', 'reportCreatedAt', 'document', 'type', 'status', 'policyStatus', 'score', 'externalId', 'policyId', 'policyVersion'];
  for (const event of finished()) for (const key of keys) assert.ok(key in event.data, `${event.type} lacks ${key}`);
  const state = fold(reportDecider, finished());
  assert.ok(state.decided);
});

test('processing that keeps failing: the report is FAILED once, later results are ignored, a finished one cannot fail', () => {
  const fail: ReportCommand = { type: 'FailProcessing', attempts: 5, at: LATER };
  const past = requested();
  const [event, ...rest] = decide(past, fail);
  assert.is(rest.length, 0);
  assert.is(event!.type, 'ReportProcessingFailed');
  assert.is(event!.data.status, 'FAILED');
  assert.is((event!.data as { reason: string }).reason, Messages.reportProcessingFailed);
  const failed = [...past, event!];
  given(reportDecider, failed).when(fail).then([], 'failed once');
  given(reportDecider, failed)
    .when(record(policy.sections.map(ok)))
    .then([], 'a late answer changes nothing');
  given(reportDecider, failed).when({ type: 'StartProcessing', at: LATER }).then([]);
  given(reportDecider, finished()).when(fail).then([], 'every source answered: nothing left to fail');
  given(reportDecider, []).when(fail).thenError('not_found', Messages.reportNotFound);
});

test.run();
