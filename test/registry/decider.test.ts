import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { registryDecider } from '../../domain/registry/decider.ts';
import { registryDocumentDecider } from '../../domain/registry/document-decider.ts';
import type { DocumentReceivedData, RegistryDocumentEvent } from '../../domain/registry/document-events.ts';
import type { RegistryEvent, RegistryRecordData } from '../../domain/registry/events.ts';
import { RegistryMessages } from '../../domain/registry/messages.ts';
import type { ExpectedDocumentType } from '../../domain/collection/enums.ts';
import { given } from '../support/decider.ts';

const test = suite('registry: registry and document deciders');

const ORG = '65a000000000000000000001';
const REG = '65a0000000000000000000aa';
const DOC = '65a0000000000000000000bb';
const at = '2026-11-23T12:00:00.000Z';
const actor = { actorType: 'USER' as const, actorId: '65a0000000000000000000cc' };
const record: RegistryRecordData = {
  organizationId: ORG,
  registryId: REG,
  document: '11222333000181',
  name: 'Padaria',
  entityType: 'COMPANY',
  contacts: [],
  basicData: {},
  kycStatus: 'PENDING',
  completeness: 0,
  at,
  ...actor,
};
const created: RegistryEvent = { type: 'RegistryCreated', data: record };
const create = {
  type: 'CreateRegistry' as const,
  organizationId: ORG,
  registryId: REG,
  document: record.document,
  entityType: 'COMPANY' as const,
  name: 'Padaria',
  contacts: [],
  basicData: {},
  at,
  ...actor,
};
const outcome = (registryDocumentId: string, type: ExpectedDocumentType, status: 'VALIDATED' | 'MANUAL_REVIEW' = 'VALIDATED', validUntil: string | null = null) => ({
  type: 'RecordDocumentOutcome' as const,
  organizationId: ORG,
  registryId: REG,
  registryDocumentId,
  outcome: { type, status, verdict: status === 'VALIDATED' ? ('VALIDO' as const) : ('ANALISE_MANUAL' as const), validUntil },
  at,
});

test('registry: created once; find-or-create finds it; a plain create is a conflict; another organization never sees it', () => {
  given(registryDecider)
    .when({ ...create, ifAbsent: false })
    .then([created]);
  given(registryDecider, [created])
    .when({ ...create, ifAbsent: true })
    .then([]);
  given(registryDecider, [created])
    .when({ ...create, ifAbsent: false })
    .thenError('conflict', RegistryMessages.registryExists);
  given(registryDecider, [created])
    .when({ type: 'UpdateRegistry', organizationId: '65a000000000000000000002', registryId: REG, changes: { name: 'x' }, at, ...actor })
    .thenError('not_found', RegistryMessages.registryNotFound);
});

test('registry: an update names what changed and carries the whole record; an unchanged one appends nothing', () => {
  const update = { type: 'UpdateRegistry' as const, organizationId: ORG, registryId: REG, at, ...actor };
  given(registryDecider, [created])
    .when({ ...update, changes: { name: 'Padaria Nova', basicData: {} } })
    .then([{ type: 'RegistryUpdated', data: { ...record, name: 'Padaria Nova', changed: ['name'] } }]);
  given(registryDecider, [created])
    .when({ ...update, changes: { name: 'Padaria', contacts: [] } })
    .then([]);
});

test('registry: completeness and KYC status follow the documents that count; a change of either is RegistryKycChanged', () => {
  const kyc = (kycStatus: string, completeness: number) => ({ type: 'RegistryKycChanged', data: { organizationId: ORG, registryId: REG, document: record.document, kycStatus, completeness, at } });
  const [first, changed] = given(registryDecider, [created]).when(outcome('d1', 'CONTRATO_SOCIAL')).decided();
  assert.is(first!.type, 'RegistryDocumentRecorded');
  assert.equal(changed, kyc('INCOMPLETE', 33));
  const events = [created, first!, changed!] as RegistryEvent[];
  given(registryDecider, events).when(outcome('d1', 'CONTRATO_SOCIAL')).then([], 'the same outcome again changes nothing');
  const withProof = given(registryDecider, events).when(outcome('d2', 'COMPROVANTE_RESIDENCIA')).decided();
  const all = [...events, ...withProof] as RegistryEvent[];
  assert.equal(given(registryDecider, all).when(outcome('d3', 'EXTRATO_BANCARIO')).decided()[1], kyc('UP_TO_DATE', 100));
  assert.equal(
    given(registryDecider, all)
      .when(outcome('d3', 'EXTRATO_BANCARIO', 'MANUAL_REVIEW'))
      .decided()[1],
    kyc('UNDER_REVIEW', 67),
  );
  assert.is(
    given(registryDecider, all)
      .when(outcome('d3', 'EXTRATO_BANCARIO', 'VALIDATED', '2026-11-22'))
      .decided().length,
    1,
    'expired: does not count, nothing changes',
  );
});

test('registry: RecomputeKyc drops completeness and status once a counted document is past its validity, and only then', () => {
  const recompute = (when: string) => ({ type: 'RecomputeKyc' as const, organizationId: ORG, registryId: REG, at: when });
  const events = [
    created,
    ...given(registryDecider, [created])
      .when(outcome('d1', 'CONTRATO_SOCIAL', 'VALIDATED', '2026-11-24'))
      .decided(),
  ] as RegistryEvent[];
  assert.equal(given(registryDecider, events).state.record?.completeness, 33);
  given(registryDecider, events).when(recompute('2026-11-24T23:59:59.000Z')).then([], 'valid through its last day: nothing');
  const drop = {
    type: 'RegistryKycChanged' as const,
    data: { organizationId: ORG, registryId: REG, document: record.document, kycStatus: 'PENDING' as const, completeness: 0, at: '2026-11-25T00:05:00.000Z' },
  };
  given(registryDecider, events).when(recompute('2026-11-25T00:05:00.000Z')).then([drop]);
  given(registryDecider, [...events, drop])
    .when(recompute('2026-11-26T00:05:00.000Z'))
    .then([], 'a repeated run appends nothing');
  given(registryDecider, [created]).when(recompute(at)).then([], 'nothing counted: nothing changes');
  given(registryDecider, []).when(recompute(at)).thenError('not_found', RegistryMessages.registryNotFound);
  given(registryDecider, events)
    .when({ ...recompute(at), organizationId: '65a000000000000000000002' })
    .thenError('not_found', RegistryMessages.registryNotFound);
});

const received: DocumentReceivedData = {
  organizationId: ORG,
  registryId: REG,
  registryDocumentId: DOC,
  at,
  document: record.document,
  fileName: 'c.pdf',
  mimeType: 'application/pdf',
  sizeBytes: 10,
  sha256: 'ab',
  blobId: '65a0000000000000000000dd',
  expectedType: 'CONTRATO_SOCIAL',
  source: null,
  uploadedBy: actor,
};
const ids = { organizationId: ORG, registryId: REG, registryDocumentId: DOC, at };
const receivedEvent: RegistryDocumentEvent = { type: 'RegistryDocumentReceived', data: received };
const progressed: RegistryDocumentEvent = { type: 'RegistryDocumentProgressed', data: { ...ids, stage: 'EXTRACTING', type: 'CONTRATO_SOCIAL', attempt: 1 } };
const opinion = { kind: 'opinion' as const, type: 'CONTRATO_SOCIAL' as const, verdict: 'VALIDO' as const, score: 0.95, reason: 'ok', validUntil: null };
const assessed: RegistryDocumentEvent = {
  type: 'RegistryDocumentAssessed',
  data: { ...ids, document: record.document, attempt: 1, source: null, type: 'CONTRATO_SOCIAL', status: 'VALIDATED', verdict: 'VALIDO', score: 0.95, reason: 'ok', validUntil: null },
};

test('document: received once, analysed once per attempt (replays change nothing)', () => {
  given(registryDocumentDecider)
    .when({ type: 'ReceiveDocument', ...received })
    .then([receivedEvent]);
  given(registryDocumentDecider, [receivedEvent])
    .when({ type: 'ReceiveDocument', ...received })
    .thenError('conflict', RegistryMessages.documentExists);
  given(registryDocumentDecider, [receivedEvent]).when({ type: 'StartAnalysis', attempt: 1, at }).then([progressed]);
  given(registryDocumentDecider, [receivedEvent, progressed]).when({ type: 'StartAnalysis', attempt: 1, at }).then([]);
  given(registryDocumentDecider, [receivedEvent, progressed]).when({ type: 'RecordAnalysis', attempt: 1, outcome: opinion, at }).then([assessed]);
  given(registryDocumentDecider, [receivedEvent, progressed, assessed]).when({ type: 'RecordAnalysis', attempt: 1, outcome: opinion, at }).then([]);
});

test('document: a technical failure has no opinion; verdicts map to statuses', () => {
  const [failed] = given(registryDocumentDecider, [receivedEvent, progressed])
    .when({ type: 'RecordAnalysis', attempt: 1, outcome: { kind: 'failure', reason: 'ilegível' }, at })
    .decided();
  assert.equal(failed, { type: 'RegistryDocumentFailed', data: { ...assessed.data, status: 'FAILED', verdict: null, score: null, reason: 'ilegível' } });
  for (const [verdict, status] of [
    ['INVALIDO', 'REJECTED'],
    ['INCONCLUSIVO', 'MANUAL_REVIEW'],
    ['ANALISE_MANUAL', 'MANUAL_REVIEW'],
  ] as const) {
    const [event] = given(registryDocumentDecider, [receivedEvent, progressed])
      .when({ type: 'RecordAnalysis', attempt: 1, outcome: { ...opinion, verdict }, at })
      .decided();
    assert.is((event!.data as { status: string }).status, status);
  }
});

test('document: reprocess and decision wait for the analysis; reprocess replaces the opinion with attempt + 1', () => {
  const reprocess = { type: 'ReprocessDocument' as const, organizationId: ORG, forceType: 'ESTATUTO_SOCIAL' as const, at };
  given(registryDocumentDecider, [receivedEvent, progressed]).when(reprocess).thenError('conflict', RegistryMessages.stillAnalysing);
  const reprocessed: RegistryDocumentEvent = { type: 'RegistryDocumentReprocessed', data: { ...ids, attempt: 2, forceType: 'ESTATUTO_SOCIAL', overriddenFeedbackVerdict: 'VALIDO' } };
  const done = [receivedEvent, progressed, assessed];
  given(registryDocumentDecider, done).when(reprocess).then([reprocessed]);
  given(registryDocumentDecider, [...done, reprocessed])
    .when({ type: 'StartAnalysis', attempt: 2, at })
    .then([{ type: 'RegistryDocumentProgressed', data: { ...ids, stage: 'EXTRACTING', type: 'ESTATUTO_SOCIAL', attempt: 2 } }]);
  given(registryDocumentDecider, [...done, reprocessed])
    .when({ type: 'StartAnalysis', attempt: 1, at })
    .then([], 'an old attempt is not analysed again');
  const decide = { type: 'DecideDocument' as const, organizationId: ORG, verdict: 'INVALIDO' as const, comment: 'rasurado', userId: 'u1', at };
  given(registryDocumentDecider, done)
    .when(decide)
    .then([
      {
        type: 'RegistryDocumentDecided',
        data: { ...ids, document: record.document, type: 'CONTRATO_SOCIAL', status: 'REJECTED', attempt: 1, verdict: 'INVALIDO', comment: 'rasurado', decidedByUserId: 'u1', source: null },
      },
    ]);
  given(registryDocumentDecider, [receivedEvent]).when(decide).thenError('conflict', RegistryMessages.stillAnalysing);
  given(registryDocumentDecider, done)
    .when({ ...decide, organizationId: '65a000000000000000000002' })
    .thenError('not_found', RegistryMessages.documentNotFound);
  given(registryDocumentDecider, []).when({ type: 'DownloadDocument', organizationId: ORG, userId: 'u1', at }).thenError('not_found', RegistryMessages.documentNotFound);
});

test.run();
