import type { PipelineContent } from '../../domain/operation/pipeline.ts';

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
