import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { backtest, type BacktestCase } from '../../domain/credit-policy/backtest.ts';
import { diffPolicies } from '../../domain/credit-policy/diff.ts';
import type { PolicyContent } from '../../domain/credit-policy/policy.ts';
import { contentOf } from '../../http/credit-policy/schemas.ts';

const test = suite('credit policy: versions compared, drafts replayed over past reports');
const base: PolicyContent = contentOf(structuredClone(DEMO_CNPJ_POLICY) as Parameters<typeof contentOf>[0]);

test('a rule renamed is a change (rules match by id), one dropped is removed, a new factor added, cut-offs and failure statuses compared', () => {
  const next = structuredClone(base);
  next.groups[0]!.rules[0]!.name = 'Situação cadastral ativa (renomeada)';
  const dropped = next.groups[1]!.rules.pop()!;
  next.score.factors.push({ id: 'novo', label: 'Novo fator', when: null, points: 10 });
  next.score.denyBelow = 350;
  next.sourceErrors.INTEGRATION_TIMEOUT = 'DENIED';
  const changes = diffPolicies(base, next);
  assert.equal(
    changes.map((c) => [c.kind, c.what, c.where]),
    [
      ['changed', 'score: denyBelow', ''],
      ['changed', 'regra', base.groups[0]!.name],
      ['removed', 'regra', base.groups[1]!.name],
      ['added', 'fator de score', 'Novo fator'],
      ['changed', 'falha de fonte', 'INTEGRATION_TIMEOUT'],
    ],
  );
  assert.is((changes[2]!.before as { name: string }).name, dropped.name);
  assert.equal(diffPolicies(base, structuredClone(base)), []);
});

test('backtest: the matrix of before against after, changed reports first, rules reading a section never queried listed as not judged', () => {
  const facts = (sections: BacktestCase['facts']['sections']): BacktestCase['facts'] => ({ documentType: 'cnpj', document: '11222333000181', sections, failures: [], skipped: [], inputs: {} });
  const cases: BacktestCase[] = [
    { reportId: 'a', document: '1', createdAt: '2026-11-01T00:00:00.000Z', before: 'APPROVED', facts: facts({}) },
    { reportId: 'b', document: '2', createdAt: '2026-11-02T00:00:00.000Z', before: 'MANUAL_ANALYSIS', facts: facts({}) },
  ];
  const result = backtest({ ...base, policyId: 'x', version: 0 }, cases);
  // No section data: no rule can be judged and the score stays at its base (650 >= 600), so both approve.
  assert.equal([result.total, result.changed], [2, 1]);
  assert.equal(result.matrix.APPROVED, { APPROVED: 1, MANUAL_ANALYSIS: 0, DENIED: 0 });
  assert.equal(result.matrix.MANUAL_ANALYSIS, { APPROVED: 1, MANUAL_ANALYSIS: 0, DENIED: 0 });
  assert.equal(
    result.outcomes.map((o) => [o.reportId, o.before, o.after]),
    [
      ['b', 'MANUAL_ANALYSIS', 'APPROVED'],
      ['a', 'APPROVED', 'APPROVED'],
    ],
  );
  assert.is(result.outcomes[0]!.unjudged.length, base.groups.flatMap((g) => g.rules).length, 'every rule listed as not judged');
});

test.run();
