import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import type { TestApp } from '../support/app.ts';
import type { TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { eventually } from '../support/wait.ts';
import { uploadAll } from '../financial-upload/support.ts';

/** A finished report of `document` under a policy with a BALANCE_SHEET section. */
export async function statementsReport(app: TestApp, tenant: TestTenant, document: string): Promise<string> {
  const policy = await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: { ...DEMO_CNPJ_POLICY, sections: [...DEMO_CNPJ_POLICY.sections, 'BALANCE_SHEET'] } });
  const created = await app.call('POST', '/v2/report', { token: tenant.token, body: { document, type: 'cnpj', policyId: policy.body.id } });
  assert.is(created.status, 200, JSON.stringify(created.body));
  await waitForReport(app, tenant.token, created.body.id);
  return created.body.id;
}

/** Uploads the files (presign, PUT) and completes the batch. */
export async function submitStatements(app: TestApp, tenant: TestTenant, reportId: string, files: Array<{ name: string; bytes: Buffer }>): Promise<void> {
  const keys = await uploadAll(app, tenant, reportId, files);
  const reply = await app.call('POST', `/report/${reportId}/financial-tab/complete`, { token: tenant.token, body: { keys } });
  assert.is(reply.status, 200, JSON.stringify(reply.body));
}

/** The BALANCE_SHEET section once a batch's outcome replaced what the sandbox source wrote. */
export const extractedSection = (app: TestApp, tenant: TestTenant, reportId: string, timeoutMs = 60_000) =>
  eventually(
    async () => {
      const reply = await app.call('GET', `/report/${reportId}/section/BALANCE_SHEET`, { token: tenant.token });
      return reply.body.selectedIntegrations?.includes('FINANCIAL_STATEMENTS') && reply.body;
    },
    { timeoutMs: timeoutMs, what: 'BALANCE_SHEET extracted' },
  );

/** The registry documents the extraction registered, once every one has an opinion. */
export const settledStatements = (app: TestApp, tenant: TestTenant, registryId: string, count: number, timeoutMs = 60_000) =>
  eventually(
    async () => {
      const reply = await app.call('GET', `/v1/registry/${registryId}/documents`, { token: tenant.token });
      return reply.body.length === count && reply.body.every((d: { status: string }) => !['RECEIVED', 'PROCESSING'].includes(d.status)) && reply.body;
    },
    { timeoutMs: timeoutMs, what: 'statements registered and analysed' },
  );

/** The registry of `document` (digits), as the list finds it. */
export async function registryOf(app: TestApp, tenant: TestTenant, document: string): Promise<string> {
  const id = await eventually(async () => (await app.call('GET', `/v1/registry?search=${document}`, { token: tenant.token })).body.items?.[0]?.id, {
    timeoutMs: 30_000,
    what: `registry of ${document}`,
  });
  return id as string;
}
