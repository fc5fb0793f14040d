import * as assert from 'uvu/assert';
import type { TestApp } from '../support/app.ts';
import type { TestTenant } from '../support/identity.ts';
import { readUntil } from '../support/wait.ts';

/** A proposal of the seeded personal credit product, through POST /v1/proposals. */
export async function newProposal(app: TestApp, tenant: TestTenant, overrides: { document?: string; requestedAmountCents?: number } = {}): Promise<string> {
  const body = {
    document: overrides.document ?? '123.456.789-09',
    name: 'Maria da Silva',
    productKey: 'credito-pessoal',
    requestedAmountCents: overrides.requestedAmountCents ?? 1_000_000,
    requestedTermMonths: 12,
  };
  const created = await app.call('POST', '/v1/proposals', { token: tenant.token, body });
  assert.is(created.status, 201, JSON.stringify(created.body));
  return created.body.id;
}

/** The customer on the public offer page, over real HTTP: a fresh link (resend), the page, the form. */
export async function chooseOnOfferPage(app: TestApp, tenant: TestTenant, proposalId: string, offerId: string, amount: string, termMonths: number): Promise<void> {
  const link = await app.call('POST', `/v1/proposals/${proposalId}/offers/${offerId}/resend`, { token: tenant.token });
  assert.is(link.status, 200, JSON.stringify(link.body));
  const page = await fetch(`${app.url}/oferta/${link.body.linkToken}`);
  assert.is(page.status, 200);
  assert.match(await page.text(), /<form/);
  const form = new URLSearchParams({ amount, termMonths: String(termMonths) });
  const chosen = await fetch(`${app.url}/oferta/${link.body.linkToken}/escolha`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
  assert.is(chosen.status, 200, await chosen.text());
}

/** Poll GET /v1/executions/{id} until `until` holds for it (or time runs out). */
export async function waitForExecution(app: TestApp, token: string, id: string, until: (execution: any) => boolean, timeoutMs = 20_000): Promise<any> {
  const reply = await readUntil(
    () => app.call('GET', `/v1/executions/${id}`, { token }),
    (r) => r.status === 200 && until(r.body),
    { timeoutMs, what: `execution ${id} to get there` },
  );
  return reply.body;
}
