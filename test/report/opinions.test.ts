import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testSectionDetails } from '../support/screening.ts';
import { reportDecider, type ReportCommand } from '../../domain/report/decider.ts';
import type { ReportEvent } from '../../domain/report/events.ts';
import type { SectionOpinionRecorded, SectionOpinionsRequested } from '../../domain/report/opinion-events.ts';
import { offlineOpinion, riskLevelOf, type OpinionInput } from '../../domain/report/opinion-rules.ts';
import type { SectionResult, SourceSectionType } from '../../domain/report/sections.ts';
import { SOURCE_SECTION_TYPES } from '../../domain/report/sections.ts';
import { given } from '../support/decider.ts';
import { cpfPolicy, testIds } from '../support/report.ts';
import { OpinionReply } from '../../application/report/opinions/request.ts';
import { Value } from 'typebox/value';

const test = suite('report opinions: decider and offline rules');
const AT = '2026-03-01T12:00:00.000Z';
const policy = cpfPolicy();
const document = { type: 'cpf', digits: '10000000108' } as const;
const result = (sectionType: SourceSectionType, behaviour: 'APPROVE' | 'DENY' = 'DENY'): SectionResult => ({
  sectionType,
  outcome: 'DONE',
  details: testSectionDetails(sectionType, { document, behaviour, now: new Date(AT) }),
  selectedIntegrations: ['SANDBOX'],
  errors: [],
  integrationCount: 1,
});
const request: ReportCommand = {
  type: 'RequestReport',
  reportId: 'rep000000000000000000001',
  organizationId: 'org000000000000000000001',
  userId: 'usr000000000000000000001',
  document,
  externalId: null,
  policy,
  scrEnabled: true,
  sectionIds: testIds('sec', 12),
  inputs: {},
  at: AT,
};
const decide = (past: readonly ReportEvent[], command: ReportCommand) => given(reportDecider, past).when(command).decided();
function finalized(): ReportEvent[] {
  const past = decide([], request);
  return [...past, ...decide(past, { type: 'RecordSectionResults', results: policy.sections.map((t) => result(t)), policy, at: AT })];
}
const ask: ReportCommand = { type: 'RequestSectionOpinions', promptVersion: 'v1', at: AT };
const opinion = { parecer: 'Texto.', score: 3, riskLevel: 'HIGH', highlights: ['x'] } as const;
const recordFor = (sectionId: string): ReportCommand => ({
  type: 'RecordSectionOpinion',
  sectionId,
  result: { status: 'DONE', opinion: { ...opinion, highlights: [...opinion.highlights] }, error: null },
  call: null,
  priceTableVersion: 'p1',
  at: AT,
});

test('opinions are asked once a report finalized, for every source section, and once only', () => {
  const past = finalized();
  const [requested] = decide(past, ask) as [SectionOpinionsRequested];
  assert.is(requested.type, 'SectionOpinionsRequested');
  assert.equal(
    requested.data.sections.map((s) => s.sectionType),
    policy.sections,
  );
  assert.is(requested.data.organizationId, 'org000000000000000000001');
  given(reportDecider, [...past, requested])
    .when(ask)
    .then([]);
  assert.throws(() => decide(decide([], request), ask), /finalized/);
});

test('each section is recorded once; a section not asked about records nothing', () => {
  const past = [...finalized(), ...decide(finalized(), ask)];
  const sectionId = (past.at(-1) as SectionOpinionsRequested).data.sections[0]!.sectionId;
  const [recorded] = decide(past, recordFor(sectionId)) as [SectionOpinionRecorded];
  assert.equal([recorded.type, recorded.data.status, recorded.data.opinion?.score, recorded.data.priceTableVersion], ['SectionOpinionRecorded', 'DONE', 3, 'p1']);
  given(reportDecider, [...past, recorded])
    .when(recordFor(sectionId))
    .then([]);
  given(reportDecider, past).when(recordFor('not-a-section')).then([]);
});

const input = (sectionType: SourceSectionType, behaviour: 'APPROVE' | 'DENY' = 'DENY'): OpinionInput => ({
  sectionType,
  documentType: 'cpf',
  outcome: 'DONE',
  details: result(sectionType, behaviour).details,
  errors: [],
});

test('offline rules: every section type gives a reply inside the schema, its level following its score', () => {
  for (const type of SOURCE_SECTION_TYPES) {
    for (const behaviour of ['APPROVE', 'DENY'] as const) {
      const reply = offlineOpinion(input(type, behaviour));
      assert.ok(Value.Check(OpinionReply, reply), `${type}: ${JSON.stringify(reply)}`);
      assert.is(reply.riskLevel, riskLevelOf(reply.score));
    }
  }
});

test('offline rules read the figures: protests and SCR in reais, a failed source asks for a manual check', () => {
  const protests = offlineOpinion(input('PROTESTS'));
  assert.match(protests.parecer, /^Foram encontrados 5 protestos, somando R\$ [\d.]+,\d{2}\./);
  assert.ok(protests.score < 2.5);
  assert.is(offlineOpinion(input('PROTESTS', 'APPROVE')).riskLevel, 'LOW');
  const scr = offlineOpinion({ ...input('SCR'), details: { referenceMonth: '2026-01', totalDebtCents: 1_000_000, overdueCents: 250_000, lossCents: 0, institutionsCount: 2 } });
  assert.match(scr.parecer, /R\$ 10\.000,00 em 2 instituições.*R\$ 2\.500,00 em atraso/);
  assert.is(scr.riskLevel, 'HIGH');
  const failed = offlineOpinion({
    sectionType: 'PROTESTS',
    documentType: 'cpf',
    outcome: 'ERROR',
    details: null,
    errors: [{ code: 'INTEGRATION_TIMEOUT', message: 'A fonte não respondeu a tempo.' }],
  });
  assert.match(failed.parecer, /não retornou dados: A fonte não respondeu a tempo\./);
  assert.is(failed.riskLevel, 'MEDIUM');
  assert.equal(offlineOpinion(input('BALANCE_SHEET')), offlineOpinion(input('BALANCE_SHEET')));
});

test.run();
