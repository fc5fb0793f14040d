import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { AGENT_LABELS, COMMITTEE_AGENTS } from '../../domain/committee/agents.ts';
import { creditPolicyDecider, latestSnapshot, type CreditPolicyCommand } from '../../domain/credit-policy/decider.ts';
import type { CreditPolicyEvent } from '../../domain/credit-policy/events.ts';
import { CommitteePolicyMessages as M } from '../../domain/credit-policy/messages.ts';
import type { CommitteePolicy, PolicyContent } from '../../domain/credit-policy/policy.ts';
import { fold } from '../../domain/shared/decider.ts';
import { given } from '../support/decider.ts';

const test = suite('credit policy decider: opinions and committee fields');
const ORG = 'aaaaaaaaaaaaaaaaaaaaaaa1';
const ID = 'bbbbbbbbbbbbbbbbbbbbbbb1';
const AT = '2026-11-23T12:00:00.000Z';

const committee = (overrides: Partial<CommitteePolicy> = {}): CommitteePolicy => ({
  trigger: 'AUTO_DECIDE',
  alcadas: [
    { level: 'GERENTE', maxAmountCents: 5_000_000, maxRiskLevel: 'MEDIUM' },
    { level: 'DIRETORIA', maxAmountCents: 50_000_000, maxRiskLevel: 'HIGH' },
  ],
  committeeMaxLevel: 'GERENTE',
  instructionsVersion: 0,
  ...overrides,
});
const content = (c?: CommitteePolicy): PolicyContent => ({ ...DEMO_CPF_POLICY, parecerEnabled: true, ...(c ? { committee: c } : {}) });
const create = (c: PolicyContent, customPromptsAllowed = true): CreditPolicyCommand => ({
  type: 'CreatePolicy',
  policyId: ID,
  organizationId: ORG,
  userId: 'u',
  content: c,
  customPromptsAllowed,
  at: AT,
});
const edit = (c: PolicyContent, customPromptsAllowed = true): CreditPolicyCommand => ({
  type: 'CreatePolicyVersion',
  policyId: ID,
  organizationId: ORG,
  userId: 'u',
  content: c,
  customPromptsAllowed,
  at: AT,
});
const versionOf = (events: CreditPolicyEvent[]) => (events[0]!.data as { content: PolicyContent }).content.committee?.instructionsVersion;

test('the agents: seven specialists and the chair, with their Portuguese labels', () => {
  assert.is(COMMITTEE_AGENTS.length, 8);
  assert.equal(Object.values(AGENT_LABELS), ['Cadastral', 'Societário', 'Financeiro', 'Comportamental', 'Jurídico', 'Macro e Setorial', 'Compliance', 'Presidente do comitê']);
});

test('parecerEnabled and committee are stored with the version; a version written before them reads parecerEnabled false', () => {
  const events = given(creditPolicyDecider, [])
    .when(create(content(committee())))
    .decided();
  const stored = (events[0]!.data as { content: PolicyContent }).content;
  assert.is(stored.parecerEnabled, true);
  assert.equal(stored.committee, committee());
  const old = { ...DEMO_CPF_POLICY } as Partial<PolicyContent>;
  delete old.parecerEnabled;
  const state = fold(creditPolicyDecider, [{ type: 'CreditPolicyCreated', data: { policyId: ID, organizationId: ORG, version: 1, content: old as PolicyContent, userId: 'u', createdAt: AT } }]);
  assert.is(latestSnapshot(state)?.parecerEnabled, false);
});

test('the alçada table is checked: levels named once, committeeMaxLevel one of them, AUTO_DECIDE needs it', () => {
  const refused = (c: CommitteePolicy, message: string) =>
    given(creditPolicyDecider, [])
      .when(create(content(c)))
      .thenError('invalid', message);
  refused(
    committee({
      alcadas: [
        { level: 'A', maxAmountCents: 1, maxRiskLevel: 'LOW' },
        { level: 'A', maxAmountCents: 2, maxRiskLevel: 'HIGH' },
      ],
      committeeMaxLevel: 'A',
    }),
    M.alcadaLevelRepeated,
  );
  refused(committee({ committeeMaxLevel: 'PRESIDENCIA' }), M.committeeMaxLevelUnknown);
  refused(committee({ committeeMaxLevel: null }), M.autoDecideNeedsLevel);
  refused(committee({ alcadas: [{ level: 'A', maxAmountCents: -1, maxRiskLevel: 'LOW' }], committeeMaxLevel: 'A' }), M.alcadaAmount);
  assert.is(
    given(creditPolicyDecider, [])
      .when(create(content(committee({ trigger: 'AUTO_SUGGEST', committeeMaxLevel: null }))))
      .decided().length,
    1,
  );
});

test('instructions: only with module committee-custom-prompts, at most 4000 characters each', () => {
  const withText = (text: string) => content(committee({ instructions: { cadastral: text } }));
  given(creditPolicyDecider, [])
    .when(create(withText('Considere o setor.'), false))
    .thenError('invalid', M.customPromptsModule);
  given(creditPolicyDecider, [])
    .when(create(withText('x'.repeat(4001))))
    .thenError('invalid', M.instructionsTooLong);
  assert.is(
    versionOf(
      given(creditPolicyDecider, [])
        .when(create(withText('x'.repeat(4000))))
        .decided(),
    ),
    1,
  );
  // Without instructions the module is not needed.
  assert.is(
    versionOf(
      given(creditPolicyDecider, [])
        .when(create(content(committee()), false))
        .decided(),
    ),
    0,
  );
});

test('each change of the instructions bumps the organization instructions version; other edits keep it', () => {
  const a = content(committee({ instructions: { chair: 'Texto A' } }));
  const b = content(committee({ instructions: { chair: 'Texto B' } }));
  let history = given(creditPolicyDecider, []).when(create(a)).decided();
  const step = (c: PolicyContent) => {
    const events = given(creditPolicyDecider, history).when(edit(c)).decided();
    history = [...history, ...events];
    return versionOf(events);
  };
  assert.is(versionOf(history), 1);
  assert.is(step({ ...a, name: 'Outro nome' }), 1, 'instructions unchanged');
  assert.is(step(b), 2);
  assert.is(step(a), 3, 'back to A is a new version: orgVersion names one text');
  assert.is(step(content(committee())), 0, 'no instructions');
  assert.is(step(b), 4);
  given(creditPolicyDecider, history).when(edit(b)).then([]);
});

test.run();
