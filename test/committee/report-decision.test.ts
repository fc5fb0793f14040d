import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reportDecider } from '../../domain/report/decider.ts';
import type { ReportEvent } from '../../domain/report/events.ts';
import type { ReportFacts } from '../../domain/report/public-events.ts';
import { given } from '../support/decider.ts';

const test = suite('report decided by the committee');
const AT = '2026-11-23T10:00:00.000Z';
const facts: ReportFacts = {
  reportId: 'rep000000000000000000001',
  organizationId: 'org000000000000000000001',
  reportCreatedAt: AT,
  document: '12345678000195',
  type: 'cnpj',
  status: 'MANUAL_ANALYSIS',
  policyStatus: 'MANUAL_ANALYSIS',
  score: 610,
  externalId: null,
  policyId: 'pol000000000000000000001',
  policyVersion: 1,
};
const requested: ReportEvent = {
  type: 'ReportRequested',
  data: {
    ...facts,
    status: 'PENDING',
    policyStatus: 'PENDING',
    userId: 'usr000000000000000000001',
    policyName: 'P',
    skippedSections: [],
    yearMonthDay: 20261123,
    sections: [],
    ranWithoutSCRReason: null,
    inputs: {},
  },
};
const decided = (decidedBy: 'POLICY' | 'ANALYST'): ReportEvent => ({
  type: 'ReportDecided',
  data: {
    ...facts,
    decision: 'MANUAL_ANALYSIS',
    kind: decidedBy === 'POLICY' ? 'AUTOMATIC' : 'MANUAL_ANALYSIS',
    decidedBy,
    previousStatus: 'PROCESSING',
    previousPolicyStatus: 'PENDING',
    analystId: decidedBy === 'ANALYST' ? 'ana000000000000000000001' : null,
    analystName: null,
    previousAnalystId: null,
    commentary: null,
    decidedAt: AT,
  },
});
const command = {
  type: 'RecordCommitteeDecision' as const,
  deliberationId: 'de1000000000000000000001',
  approved: true,
  commentary: 'Aprovado pelo comitê.',
  sandbox: false,
  model: 'gpt-test',
  at: AT,
};

test('AUTO_DECIDE records the decision as the committee, over the policy decision', () => {
  given(reportDecider, [requested, decided('POLICY')])
    .when(command)
    .then([
      {
        type: 'ReportDecided',
        data: {
          ...facts,
          status: 'APPROVED',
          policyStatus: 'APPROVED',
          decision: 'APPROVED',
          kind: 'COMMITTEE',
          decidedBy: 'COMMITTEE',
          previousStatus: 'MANUAL_ANALYSIS',
          previousPolicyStatus: 'MANUAL_ANALYSIS',
          analystId: null,
          analystName: null,
          previousAnalystId: null,
          commentary: 'Aprovado pelo comitê.',
          decidedAt: AT,
          provenance: { provider: 'gpt-test', sandbox: false },
        },
      },
    ]);
});

test('a decision on the offline model carries sandbox: true', () => {
  const [event] = given(reportDecider, [requested, decided('POLICY')])
    .when({ ...command, sandbox: true })
    .decided();
  assert.is((event as Extract<ReportEvent, { type: 'ReportDecided' }>).data.sandbox, true);
  assert.equal((event as Extract<ReportEvent, { type: 'ReportDecided' }>).data.provenance, { provider: 'gpt-test', sandbox: true });
});

test('an analyst decision stands and a report still processing has nothing to decide', () => {
  given(reportDecider, [requested, decided('ANALYST')])
    .when(command)
    .then([]);
  given(reportDecider, [requested]).when(command).then([]);
  assert.equal(given(reportDecider).when(command).decided(), []);
});

test.run();
