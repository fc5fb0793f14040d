import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { CommitteePolicyMessages as M } from '../../domain/credit-policy/messages.ts';
import { MODULES } from '../../domain/identity/access.ts';
import { provisionTenant, serviceWithTenant, type TestTenant } from '../support/identity.ts';
import type { TestApp } from '../support/app.ts';

const test = suite('credit policies through HTTP: parecerEnabled and committee');
let app: TestApp;
let withoutCustomPrompts: TestTenant;

const call = serviceWithTenant(test, async (a) => {
  app = a;
  withoutCustomPrompts = await provisionTenant(a, { modules: MODULES.filter((m) => m !== 'committee-custom-prompts') });
});

const committee = {
  trigger: 'AUTO_DECIDE',
  alcadas: [
    { level: 'GERENTE', maxAmountCents: 5_000_000, maxRiskLevel: 'MEDIUM' },
    { level: 'COMITE', maxAmountCents: 50_000_000, maxRiskLevel: 'HIGH' },
  ],
  committeeMaxLevel: 'GERENTE',
  instructions: { cadastral: 'Dê atenção a mudanças recentes de endereço.', chair: '  ', financeiro: 'Use o último balanço.' },
};

test('absent: parecerEnabled false and no committee', async () => {
  const created = (await call('POST', '/credit-policy/policy', { ...DEMO_CPF_POLICY, parecerEnabled: undefined })).body;
  assert.is(created.parecerEnabled, false);
  assert.is(created.committee, undefined);
});

test('stored per version and returned: blank instructions dropped, instructionsVersion set by the service, bumped when instructions change', async () => {
  const created = await call('POST', '/credit-policy/policy', { ...DEMO_CPF_POLICY, parecerEnabled: true, committee: { ...committee, instructionsVersion: 99 } });
  assert.is(created.status, 200, JSON.stringify(created.body));
  assert.is(created.body.parecerEnabled, true);
  assert.equal(created.body.committee, {
    trigger: 'AUTO_DECIDE',
    alcadas: committee.alcadas,
    committeeMaxLevel: 'GERENTE',
    instructions: { cadastral: committee.instructions.cadastral, financeiro: committee.instructions.financeiro },
    instructionsVersion: 1,
  });
  const id = created.body.id;
  const v2 = await call('PUT', `/credit-policy/policy/${id}`, { ...DEMO_CPF_POLICY, parecerEnabled: true, committee: { ...committee, instructions: { chair: 'Seja conservador.' } } });
  assert.equal([v2.body.version, v2.body.committee.instructionsVersion, v2.body.committee.instructions], [2, 2, { chair: 'Seja conservador.' }]);
  const v3 = await call('PUT', `/credit-policy/policy/${id}`, { ...DEMO_CPF_POLICY, parecerEnabled: false, committee: { ...committee, instructions: { chair: 'Seja conservador.' } } });
  assert.equal([v3.body.version, v3.body.parecerEnabled, v3.body.committee.instructionsVersion], [3, false, 2]);
  const versions = (await call('GET', `/credit-policy/policy/${id}/versions`)).body;
  assert.equal(
    versions.map((v: any) => [v.parecerEnabled, v.committee.instructionsVersion]),
    [
      [true, 1],
      [true, 2],
      [false, 2],
    ],
  );
  assert.equal((await call('GET', `/credit-policy/policy/${id}/versions/1`)).body.committee, created.body.committee);
});

test('400 in Portuguese: instructions without module committee-custom-prompts, over 4000 characters, a bad alçada table', async () => {
  const refused = await app.call('POST', '/credit-policy/policy', { token: withoutCustomPrompts.token, body: { ...DEMO_CPF_POLICY, committee } });
  assert.equal(refused.body, { code: 400, message: M.customPromptsModule });
  const noInstructions = await app.call('POST', '/credit-policy/policy', { token: withoutCustomPrompts.token, body: { ...DEMO_CPF_POLICY, committee: { ...committee, instructions: undefined } } });
  assert.is(noInstructions.status, 200);
  const long = await call('POST', '/credit-policy/policy', { ...DEMO_CPF_POLICY, committee: { ...committee, instructions: { juridico: 'x'.repeat(4001) } } });
  assert.equal(long.body, { code: 400, message: `committee.instructions.${M.instructionsTooLong}` });
  const trigger = await call('POST', '/credit-policy/policy', { ...DEMO_CPF_POLICY, committee: { ...committee, trigger: 'SOMETIMES' } });
  assert.equal(trigger.body, { code: 400, message: `committee.${M.trigger}` });
  const level = await call('POST', '/credit-policy/policy', { ...DEMO_CPF_POLICY, committee: { ...committee, committeeMaxLevel: 'PRESIDENCIA' } });
  assert.equal(level.body, { code: 400, message: M.committeeMaxLevelUnknown });
  const risk = await call('POST', '/credit-policy/policy', { ...DEMO_CPF_POLICY, committee: { ...committee, alcadas: [{ level: 'A', maxAmountCents: 1, maxRiskLevel: 'EXTREME' }] } });
  assert.equal(risk.body, { code: 400, message: `committee.alcadas.0.${M.alcadaRiskLevel}` });
  const flag = await call('POST', '/credit-policy/policy', { ...DEMO_CPF_POLICY, parecerEnabled: 'sim' });
  assert.equal(flag.body, { code: 400, message: M.parecerEnabled });
});

test.run();
