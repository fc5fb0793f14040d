import type { DocumentType } from '../../../domain/shared/document.ts';

/**
 * The sandbox's test documents, like test card numbers: each gives one documented outcome under
 * the demo policies (docs/reports.md has the table). Every one has valid check digits. Any other
 * valid document gets clean data, which the demo policies approve.
 */
export type SandboxBehaviour = 'APPROVE' | 'DENY' | 'MANUAL_ANALYSIS' | 'TIMEOUT' | 'UNAVAILABLE' | 'NO_DATA' | 'INVALID_DOCUMENT';

export interface SandboxDocument {
  document: string;
  type: DocumentType;
  behaviour: SandboxBehaviour;
  /** policyStatus under the demo policy of the document's type. */
  expectedPolicyStatus: 'APPROVED' | 'DENIED' | 'MANUAL_ANALYSIS';
  what: string;
}

export const SANDBOX_DOCUMENTS: readonly SandboxDocument[] = [
  { document: '12345678909', type: 'cpf', behaviour: 'APPROVE', expectedPolicyStatus: 'APPROVED', what: 'clean data' },
  { document: '10000000108', type: 'cpf', behaviour: 'DENY', expectedPolicyStatus: 'DENIED', what: '5 protests (PROTESTS.bureau.protestsQuantity = 5)' },
  { document: '10000000280', type: 'cpf', behaviour: 'MANUAL_ANALYSIS', expectedPolicyStatus: 'MANUAL_ANALYSIS', what: 'one Pefin record (PEFIN.count = 1)' },
  { document: '10000000361', type: 'cpf', behaviour: 'TIMEOUT', expectedPolicyStatus: 'MANUAL_ANALYSIS', what: 'PROTESTS never answers: INTEGRATION_TIMEOUT after SOURCE_TIMEOUT_MS' },
  { document: '10000000442', type: 'cpf', behaviour: 'UNAVAILABLE', expectedPolicyStatus: 'MANUAL_ANALYSIS', what: 'PROTESTS is down: INTEGRATION_UNAVAILABLE' },
  { document: '10000000523', type: 'cpf', behaviour: 'NO_DATA', expectedPolicyStatus: 'MANUAL_ANALYSIS', what: 'BASIC_INFORMATION and LOCATION have no record: INTEGRATION_NO_DATA' },
  { document: '10000000604', type: 'cpf', behaviour: 'INVALID_DOCUMENT', expectedPolicyStatus: 'DENIED', what: 'every source refuses the number: INTEGRATION_INVALID_DOCUMENT' },
  { document: '11222333000181', type: 'cnpj', behaviour: 'APPROVE', expectedPolicyStatus: 'APPROVED', what: 'clean data' },
  { document: '10000001000190', type: 'cnpj', behaviour: 'DENY', expectedPolicyStatus: 'DENIED', what: '5 protests (PROTESTS.bureau.protestsQuantity = 5)' },
  { document: '10000002000134', type: 'cnpj', behaviour: 'MANUAL_ANALYSIS', expectedPolicyStatus: 'MANUAL_ANALYSIS', what: 'one Pefin record (PEFIN.count = 1)' },
  { document: '10000003000189', type: 'cnpj', behaviour: 'TIMEOUT', expectedPolicyStatus: 'MANUAL_ANALYSIS', what: 'PROTESTS never answers: INTEGRATION_TIMEOUT after SOURCE_TIMEOUT_MS' },
  { document: '10000004000123', type: 'cnpj', behaviour: 'UNAVAILABLE', expectedPolicyStatus: 'MANUAL_ANALYSIS', what: 'PROTESTS is down: INTEGRATION_UNAVAILABLE' },
  { document: '10000005000178', type: 'cnpj', behaviour: 'NO_DATA', expectedPolicyStatus: 'MANUAL_ANALYSIS', what: 'BASIC_INFORMATION and LOCATION have no record: INTEGRATION_NO_DATA' },
  { document: '10000006000112', type: 'cnpj', behaviour: 'INVALID_DOCUMENT', expectedPolicyStatus: 'DENIED', what: 'every source refuses the number: INTEGRATION_INVALID_DOCUMENT' },
];

const BY_DOCUMENT = new Map(SANDBOX_DOCUMENTS.map((d) => [d.document, d.behaviour]));

export function sandboxBehaviourOf(digits: string): SandboxBehaviour {
  return BY_DOCUMENT.get(digits) ?? 'APPROVE';
}
