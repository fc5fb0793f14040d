import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY, DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { creditPolicyDecider, latestSnapshot, type CreditPolicyCommand } from '../../domain/credit-policy/decider.ts';
import type { CreditPolicyEvent } from '../../domain/credit-policy/events.ts';
import type { PolicyContent } from '../../domain/credit-policy/policy.ts';
import { fold } from '../../domain/shared/decider.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { assertRefused, given } from '../support/decider.ts';

const test = suite('credit policy decider');
const ORG = 'org000000000000000000001';
const OTHER_ORG = 'org000000000000000000002';
const ID = 'pol000000000000000000001';
const AT = '2026-01-10T12:00:00.000Z';

const create = (content: PolicyContent = DEMO_CPF_POLICY): CreditPolicyCommand => ({ type: 'CreatePolicy', policyId: ID, organizationId: ORG, userId: 'u1', content, at: AT });
const version = (content: PolicyContent, organizationId = ORG): CreditPolicyCommand => ({
  type: 'CreatePolicyVersion',
  policyId: ID,
  organizationId,
  userId: 'u2',
  content,
  at: AT,
});
const created = (): CreditPolicyEvent[] => given(creditPolicyDecider, []).when(create()).decided();
const decide = (past: CreditPolicyEvent[], command: CreditPolicyCommand) => given(creditPolicyDecider, past).when(command).decided();

test('create: version 1 with the whole content', () => {
  assert.equal(created(), [{ type: 'CreditPolicyCreated', data: { policyId: ID, organizationId: ORG, version: 1, content: DEMO_CPF_POLICY, userId: 'u1', createdAt: AT } }]);
});

test('an edit is a new immutable version; earlier versions stay', () => {
  const edited = { ...DEMO_CPF_POLICY, name: 'PF v2' };
  const events = [...created(), ...decide(created(), version(edited))];
  assert.is(events[1]!.type, 'CreditPolicyVersioned');
  assert.is((events[1]!.data as { version: number }).version, 2);
  const state = fold(creditPolicyDecider, events);
  assert.is(state.versions[0]!.name, DEMO_CPF_POLICY.name);
  assert.equal(latestSnapshot(state)?.version, 2);
  assert.is(latestSnapshot(state)?.name, 'PF v2');
});

test('saving unchanged content (keys in another order) makes no version', () => {
  const reordered = Object.fromEntries(Object.entries(DEMO_CPF_POLICY).reverse()) as unknown as PolicyContent;
  given(creditPolicyDecider, created()).when(version(reordered)).then([]);
});

test('another organization sees no policy', () => {
  given(creditPolicyDecider, created()).when(version(DEMO_CPF_POLICY, OTHER_ORG)).thenError('not_found', Messages.policyNotFound);
  given(creditPolicyDecider, []).when(version(DEMO_CPF_POLICY)).thenError('not_found', Messages.policyNotFound);
});

test('the document type cannot change', () => {
  given(creditPolicyDecider, created()).when(version(DEMO_CNPJ_POLICY)).thenError('invalid', Messages.policyDocumentTypeChange);
});

test('archived: no new version; archiving twice changes nothing', () => {
  const archive: CreditPolicyCommand = { type: 'ArchivePolicy', policyId: ID, organizationId: ORG, userId: 'u1', at: AT };
  const archived = [...created(), ...decide(created(), archive)];
  assert.is(archived[1]!.type, 'CreditPolicyArchived');
  given(creditPolicyDecider, archived).when(archive).then([]);
  given(creditPolicyDecider, archived)
    .when(version({ ...DEMO_CPF_POLICY, name: 'x' }))
    .thenError('conflict', Messages.policyArchived);
});

test('content is validated: sections, expressions, variables, cut-offs, ids', () => {
  const bad = (patch: Partial<PolicyContent>) => () =>
    given(creditPolicyDecider, [])
      .when(create({ ...DEMO_CPF_POLICY, ...patch }))
      .decided();
  assertRefused(bad({ sections: [] }), 'invalid', 'A política precisa consultar ao menos uma seção.');
  assertRefused(bad({ sections: ['BASIC_INFORMATION', 'BALANCE_SHEET'] }), 'invalid', 'A seção BALANCE_SHEET não se aplica a políticas de CPF.');
  const withRule = (condition: unknown) => bad({ groups: [{ id: 'g', name: 'G', rules: [{ id: 'r1', name: 'R', description: null, condition, onFail: 'DENY' }] }] });
  assertRefused(withRule({ foo: [1] }), 'invalid', 'A regra "r1" não é uma expressão JSON Logic válida: operador desconhecido "foo".');
  assertRefused(withRule({ '==': [{ var: 'BALANCE_SHEET.revenueCents' }, 1] }), 'invalid', /lê "BALANCE_SHEET.revenueCents"/);
  assertRefused(withRule({ val: ['x'] }), 'invalid', /operador "val"/);
  assertRefused(bad({ score: { ...DEMO_CPF_POLICY.score, denyBelow: 700, approveFrom: 600 } }), 'invalid', /corte de negação/);
  const twice = DEMO_CPF_POLICY.groups[0]!;
  assertRefused(bad({ groups: [twice, twice] }), 'invalid', /grupo "cadastro" aparece mais de uma vez/);
});

test('numbers beyond the bounds are refused, so no event carries one the read model cannot keep', () => {
  const score = (patch: Partial<PolicyContent['score']>) => ({ ...DEMO_CPF_POLICY, score: { ...DEMO_CPF_POLICY.score, ...patch } });
  const inRange = 'precisa ser um número inteiro entre -100000 e 100000.';
  for (const command of [create, (content: PolicyContent) => version(content)]) {
    const refusedWith = (content: PolicyContent, message: string) =>
      given(creditPolicyDecider, command === create ? [] : created())
        .when(command(content))
        .thenError('invalid', message);
    refusedWith(score({ base: 3e9, max: 3e9 }), `A pontuação base ${inRange}`);
    refusedWith(score({ max: 1e308 }), `A pontuação máxima ${inRange}`);
    refusedWith(score({ min: -1e308 }), `A pontuação mínima ${inRange}`);
    refusedWith(score({ approveFrom: 100_001 }), `O corte de aprovação ${inRange}`);
    refusedWith(score({ denyBelow: 0.5 }), `O corte de negação ${inRange}`);
    refusedWith(score({ factors: [{ id: 'f', label: 'F', when: null, points: 1e308 }] }), 'Os pontos do fator "f" precisam ser um número entre -200000 e 200000.');
    refusedWith(score({ factors: [{ id: 'f', label: 'F', when: null, points: Number.NaN }] }), 'Os pontos do fator "f" precisam ser um número entre -200000 e 200000.');
  }
  const widest = score({ base: 100_000, min: -100_000, max: 100_000, approveFrom: 100_000, denyBelow: -100_000, factors: [{ id: 'f', label: 'F', when: null, points: -200_000 }] });
  assert.is(decide([], create(widest)).length, 1, 'the bounds themselves are accepted');
});

test('rules may read proposal inputs and the document; iterator bodies read the item', () => {
  const content: PolicyContent = {
    ...DEMO_CPF_POLICY,
    groups: [
      {
        id: 'g',
        name: 'G',
        rules: [
          { id: 'renda', name: 'Renda', description: null, condition: { '>=': [{ var: 'inputs.renda_mensal' }, 1000] }, onFail: 'MANUAL_ANALYSIS' },
          { id: 'tipo', name: 'Tipo', description: null, condition: { '==': [{ var: 'document.type' }, 'cpf'] }, onFail: 'DENY' },
          {
            id: 'protestos-pequenos',
            name: 'Protestos pequenos',
            description: null,
            condition: { all: [{ var: 'PROTESTS.bureau.protests' }, { '<': [{ var: 'amountCents' }, 100000] }] },
            onFail: 'DENY',
          },
        ],
      },
    ],
  };
  assert.is(given(creditPolicyDecider, []).when(create(content)).decided().length, 1);
});

test.run();
