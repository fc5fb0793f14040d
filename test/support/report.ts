import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY, DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import type { PolicySnapshot } from '../../domain/credit-policy/policy.ts';
import type { Principal } from '../../domain/identity/access.ts';
import type { TestApp } from './app.ts';
import { readUntil } from './wait.ts';

/** A caller for command handlers driven without HTTP (process managers, restarts). */
export const testCaller = {
  organizationId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
  userId: 'bbbbbbbbbbbbbbbbbbbbbbbb',
  userName: 'Tester',
  modules: new Set(['reports', 'scr']),
} as unknown as Principal;

export const cpfPolicy = (overrides: Partial<PolicySnapshot> = {}): PolicySnapshot => ({
  ...structuredClone(DEMO_CPF_POLICY),
  policyId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
  version: 1,
  ...overrides,
});

export const cnpjPolicy = (overrides: Partial<PolicySnapshot> = {}): PolicySnapshot => ({
  ...structuredClone(DEMO_CNPJ_POLICY),
  policyId: 'bbbbbbbbbbbbbbbbbbbbbbbb',
  version: 1,
  ...overrides,
});

/** Fresh ObjectId-looking ids for tests (no clock, no random: easy to read in failures). */
export function testIds(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(24 - prefix.length, '0')}`);
}

/** Poll GET /v2/report/{id} until the report is finalized (or time runs out). */
export async function waitForReport(app: TestApp, token: string, id: string, timeoutMs = 15_000): Promise<any> {
  const reply = await readUntil(
    async () => {
      const reply = await app.call('GET', `/v2/report/${id}`, { token });
      assert.is(reply.status, 200, JSON.stringify(reply.body));
      return reply;
    },
    (reply) => reply.body.reportProgress.isFinalized,
    { timeoutMs, what: `report ${id} to be finalized` },
  );
  return reply.body;
}
