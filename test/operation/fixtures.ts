import type { ContractStep, PipelineContent } from '../../domain/operation/pipeline.ts';

export const POLICY = 'c'.repeat(24);

/** Every step kind the service runs today, in the order the journey takes them. */
export const fullPipeline: PipelineContent = {
  name: 'Crédito pessoal',
  description: null,
  entityTypes: ['PERSON'],
  steps: [
    { kind: 'POLICY_REPORT', policies: { PERSON: POLICY } },
    { kind: 'PRE_APPROVAL', minAmountPercent: 50, maxAmountPercent: 100, minTermMonths: 6, maxTermMonths: 24, validDays: 7 },
    { kind: 'WAIT_CUSTOMER_CHOICE' },
    { kind: 'FINAL_APPROVAL', by: 'POLICY' },
    { kind: 'ISSUE_FIRM_OFFER', validDays: 5 },
  ],
};

/** A policy over one source whose score alone decides: base 800 approves, 300 asks an analyst, 100 denies. */
export const scorePolicy = (base: number, documentType: 'cpf' | 'cnpj' = 'cpf') => ({
  name: `Score ${base}`,
  documentType,
  sections: ['BASIC_INFORMATION'],
  score: { base, approveFrom: 500, denyBelow: 200, factors: [] },
  groups: [],
});

/** The steps of fullPipeline with another policy and final approval. */
export function pipelineBody(policyId: string, finalBy: 'POLICY' | 'OPERATOR' = 'POLICY') {
  return {
    ...fullPipeline,
    steps: fullPipeline.steps.map((s) => (s.kind === 'POLICY_REPORT' ? { ...s, policies: { PERSON: policyId } } : s.kind === 'FINAL_APPROVAL' ? { ...s, by: finalBy } : s)),
  };
}

/** A contract step with every field, its text using some of the contract fields. */
export const contractStep = (overrides: Partial<ContractStep> = {}): ContractStep => ({
  kind: 'CONTRACT_SIGNATURE',
  title: 'Assinatura da cédula de crédito',
  template:
    'CÉDULA DE CRÉDITO BANCÁRIO\n\nEmitente: {{nome}}, {{documento}}.\nValor: {{valor}} em {{prazo}} parcelas de {{parcela}}, juros de {{taxa_mensal}} ao mês, CET de {{cet_anual}} ao ano.\n{{cronograma}}\nPartes: {{partes}}. São Paulo, {{data}}.',
  signers: [],
  includeParticipants: true,
  ordered: false,
  expiryDays: 15,
  ...overrides,
});
