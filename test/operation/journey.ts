import * as assert from 'uvu/assert';
import { createProposal } from '../../application/proposal/commands.ts';
import type { TestApp } from '../support/app.ts';
import type { TestTenant } from '../support/identity.ts';

/** A proposal of the seeded personal credit product, as POST /v1/proposals would create it. */
export async function newProposal(app: TestApp, tenant: TestTenant, overrides: { document?: string; requestedAmountCents?: number } = {}): Promise<string> {
  const { proposalId, position } = await createProposal(app.app, tenant, {
    document: overrides.document ?? '12345678909',
    name: 'Maria da Silva',
    productKey: 'credito-pessoal',
    requestedAmountCents: overrides.requestedAmountCents ?? 1_000_000,
    requestedTermMonths: 12,
  });
  await app.app.readYourWrites([], position);
  return proposalId;
}

/** Poll GET /v1/executions/{id} until `until` holds for it (or time runs out). */
export async function waitForExecution(app: TestApp, token: string, id: string, until: (execution: any) => boolean, timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  for (;;) {
    const reply = await app.call('GET', `/v1/executions/${id}`, { token });
    last = reply.body;
    if (reply.status === 200 && until(reply.body)) return reply.body;
    if (Date.now() > deadline) assert.unreachable(`execution ${id} did not get there: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
