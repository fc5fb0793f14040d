import { setTimeout as sleep } from 'node:timers/promises';
import type { PipelineContent } from '../../domain/operation/pipeline.ts';
import { findProductByKey, listPortfolios } from '../../projections/catalog/queries.ts';
import { listPolicies } from '../../projections/credit-policy/queries.ts';
import { DEMO_CPF_POLICY } from '../credit-policy/demo-policies.ts';
import type { AppContext } from '../context.ts';
import type { DemoSeeder } from '../demo.ts';
import { createOperation } from '../operation/commands.ts';
import { runProposal } from '../operation/run-commands.ts';
import { createProposal, type CreateProposalInput } from './commands.ts';

/** The catalog and policy seeders ran just before; their read models catch up within moments. */
async function projected<T>(read: () => Promise<T | null | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} is not in the read models: run the catalog and credit-policy seeders first`);
    await sleep(100);
  }
}

const pipeline = (policyId: string): PipelineContent => ({
  name: 'Crédito pessoal: análise, oferta e aprovação',
  description: 'Política de crédito, oferta indicativa, escolha do cliente, aprovação final por um operador e oferta firme',
  entityTypes: ['PERSON'],
  steps: [
    { kind: 'POLICY_REPORT', policies: { PERSON: policyId } },
    { kind: 'PRE_APPROVAL', minAmountPercent: 50, maxAmountPercent: 100, minTermMonths: 6, maxTermMonths: 24, validDays: 7 },
    { kind: 'WAIT_CUSTOMER_CHOICE' },
    { kind: 'FINAL_APPROVAL', by: 'OPERATOR' },
    { kind: 'ISSUE_FIRM_OFFER', validDays: 5 },
  ],
});

/** Sandbox documents, so each run ends as the sandbox documents say: approved, sent to an analyst, denied. */
const PROPOSALS: Array<CreateProposalInput & { portfolio: string; run: boolean }> = [
  {
    document: '123.456.789-09',
    name: 'Ana Souza',
    productKey: 'credito-pessoal',
    requestedAmountCents: 800_000,
    requestedTermMonths: 12,
    origin: 'PUBLIC_FORM',
    portfolio: 'Varejo',
    run: true,
    contact: { email: 'ana@example.com', phone: '+5511987650001' },
  },
  { document: '100.000.002-80', name: 'Bruno Lima', productKey: 'credito-pessoal', requestedAmountCents: 1_500_000, requestedTermMonths: 24, origin: 'OPERATOR', portfolio: 'Varejo', run: true },
  {
    document: '100.000.001-08',
    name: 'Carla Dias',
    productKey: 'credito-pessoal',
    requestedAmountCents: 300_000,
    requestedTermMonths: 10,
    origin: 'CHANNEL',
    portfolio: 'Correspondentes',
    run: true,
    correspondentId: '0000000000000000000c0001',
  },
  {
    document: '100.000.005-23',
    name: 'Daniel Rocha',
    productKey: 'crediario',
    requestedAmountCents: 250_000,
    requestedTermMonths: 10,
    origin: 'API',
    portfolio: 'Varejo',
    run: false,
    externalId: 'PED-2026-0042',
  },
  {
    document: '11.222.333/0001-81',
    name: 'Padaria Pão Dourado Ltda',
    productKey: 'capital-de-giro-prefixado',
    requestedAmountCents: 8_000_000,
    requestedTermMonths: 18,
    origin: 'CRM',
    portfolio: 'Empresas',
    run: false,
    participants: [{ document: '123.456.789-09', name: 'Ana Souza', role: 'PARTNER' }],
  },
];

/**
 * `provision --demo`: a pipeline over the demo CPF policy and five proposals in the demo
 * catalog, three of them run through it; the executions move on once the service runs (its
 * process manager follows from the start of the log): one reaches the customer's choice, one
 * waits for an analyst, one is rejected. Two stay in DRAFT.
 */
export const proposalDemoSeeder: DemoSeeder = {
  name: 'proposal',
  async seed(app: AppContext, tenant) {
    const { organizationId } = tenant;
    const policy = await projected(async () => (await listPolicies(app.db, organizationId, { documentType: 'cpf' })).find((p) => p.content.name === DEMO_CPF_POLICY.name), 'the demo CPF policy');
    await projected(() => findProductByKey(app.db, organizationId, 'capital-de-giro-prefixado'), 'the demo catalog');
    const portfolios = await projected(async () => {
      const all = await listPortfolios(app.db, organizationId, {});
      return all.length >= 3 ? all : null;
    }, 'the demo portfolios');
    const content = pipeline(policy.id);
    const operationId = (await createOperation(app, tenant.principal, content)).state.operationId!;
    const proposals = [];
    for (const { portfolio, run, ...input } of PROPOSALS) {
      const portfolioId = portfolios.find((p) => p.name === portfolio)?.portfolioId;
      const { proposalId } = await createProposal(app, tenant.principal, { ...input, portfolioId });
      const execution = run ? await runProposal(app, tenant.principal, proposalId, { kind: 'OPERATION', targetId: operationId }) : null;
      proposals.push({ id: proposalId, name: input.name, operationResultId: execution?.operationResultId ?? null });
    }
    return { pipelines: [{ id: operationId, name: content.name }], proposals };
  },
};
