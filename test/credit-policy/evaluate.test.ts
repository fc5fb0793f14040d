import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluatePolicy, type EvaluationFacts } from '../../domain/credit-policy/evaluate.ts';
import { testSectionDetails } from '../support/screening.ts';
import type { SourceSectionType } from '../../domain/report/sections.ts';
import { cpfPolicy } from '../support/report.ts';

const test = suite('credit policy evaluation');
const NOW = new Date('2026-03-01T12:00:00Z');
const policy = cpfPolicy();

function facts(patch: Partial<Record<SourceSectionType, Record<string, unknown>>> = {}, more: Partial<EvaluationFacts> = {}): EvaluationFacts {
  const sections: EvaluationFacts['sections'] = {};
  for (const type of policy.sections) {
    sections[type] = testSectionDetails(type, { document: { type: 'cpf', digits: '12345678909' }, behaviour: 'APPROVE', now: NOW });
  }
  return { documentType: 'cpf', document: '12345678909', sections: { ...sections, ...patch }, failures: [], skipped: [], inputs: {}, ...more };
}

test('clean data: every rule passes, score from the scorecard, approved', () => {
  const result = evaluatePolicy(policy, facts());
  assert.is(result.decision, 'APPROVED');
  assert.is(result.score, 750);
  assert.is(result.policyErrorStatusApplied, null);
  assert.ok(result.groups.every((g) => g.passed === true));
  const protests = result.groups[1]!.rules.find((r) => r.id === 'protestos-ate-2')!;
  assert.equal(protests.facts, { 'PROTESTS.bureau.protestsQuantity': 0 });
});

test('a failed DENY rule denies and says why, with the facts it read', () => {
  const result = evaluatePolicy(policy, facts({ PROTESTS: { bureau: { protestsQuantity: 5, protestsAmountCents: 0, protests: [] } } }));
  assert.is(result.decision, 'DENIED');
  assert.is(result.ruleDecision, 'DENIED');
  assert.is(result.score, 750 - 400);
  const rule = result.groups[1]!.rules.find((r) => r.id === 'protestos-ate-2')!;
  assert.is(rule.passed, false);
  assert.equal(rule.facts, { 'PROTESTS.bureau.protestsQuantity': 5 });
  assert.is(result.groups[1]!.passed, false);
  assert.ok(result.reasons.some((r) => r.includes('No máximo 2 protestos')));
});

test('a score between the cut-offs sends to manual analysis', () => {
  const result = evaluatePolicy(cpfPolicy({ score: { ...policy.score, approveFrom: 800 } }), facts());
  assert.is(result.scoreDecision, 'MANUAL_ANALYSIS');
  assert.is(result.decision, 'MANUAL_ANALYSIS');
});

test('a failed source: its rules are not judged and the policy status for the code applies', () => {
  const { PROTESTS: _, ...rest } = facts().sections;
  const result = evaluatePolicy(policy, { ...facts(), sections: rest, failures: [{ sectionType: 'PROTESTS', codes: ['INTEGRATION_TIMEOUT'] }] });
  const rule = result.groups[1]!.rules.find((r) => r.id === 'protestos-ate-2')!;
  assert.is(rule.passed, null);
  assert.match(rule.reason!, /PROTESTS não retornou dados \(INTEGRATION_TIMEOUT\)/);
  assert.is(result.groups[1]!.passed, null);
  assert.is(result.policyErrorStatusApplied, 'MANUAL_ANALYSIS');
  assert.is(result.decision, 'MANUAL_ANALYSIS');
  assert.is(result.scoreFactors.find((f) => f.id === 'protestos')!.applied, null);
});

test('IGNORE decides on what arrived', () => {
  const { PROTESTS: _, ...rest } = facts().sections;
  const ignoring = cpfPolicy({ sourceErrors: { ...policy.sourceErrors, INTEGRATION_UNAVAILABLE: 'IGNORE' } });
  const result = evaluatePolicy(ignoring, { ...facts(), sections: rest, failures: [{ sectionType: 'PROTESTS', codes: ['INTEGRATION_UNAVAILABLE'] }] });
  assert.is(result.policyErrorStatusApplied, null);
  assert.is(result.decision, 'APPROVED');
});

test('a skipped section (SCR without the module) is not an error', () => {
  const { SCR: _, ...rest } = facts().sections;
  const result = evaluatePolicy(policy, { ...facts(), sections: rest, skipped: ['SCR'] });
  assert.is(result.decision, 'APPROVED');
  assert.equal(result.skippedSections, ['SCR']);
  assert.match(result.groups[2]!.rules[0]!.reason!, /SCR não foi consultada/);
});

test('inputs.<key>: judged when given, not judged when missing', () => {
  const withInput = cpfPolicy({
    groups: [{ id: 'g', name: 'G', rules: [{ id: 'renda', name: 'Renda mínima', description: null, condition: { '>=': [{ var: 'inputs.renda' }, 3000] }, onFail: 'MANUAL_ANALYSIS' }] }],
  });
  assert.is(evaluatePolicy(withInput, facts({}, { inputs: { renda: 5000 } })).decision, 'APPROVED');
  assert.is(evaluatePolicy(withInput, facts({}, { inputs: { renda: 1000 } })).decision, 'MANUAL_ANALYSIS');
  const missing = evaluatePolicy(withInput, facts());
  assert.is(missing.groups[0]!.rules[0]!.passed, null);
  assert.is(missing.decision, 'APPROVED');
});

test('the score is clamped to the model range', () => {
  const generous = cpfPolicy({ score: { ...policy.score, factors: [{ id: 'x', label: 'x', when: null, points: 5000 }] } });
  assert.is(evaluatePolicy(generous, facts()).score, 1000);
});

test.run();
