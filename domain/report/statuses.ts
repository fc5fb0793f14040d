/**
 * Report status values with the {id, value, title} the contract returns. PENDING/Não iniciado
 * and DENIED/Negado are the spec's; the other titles and every id are ours. Never renumber.
 */
export const REPORT_STATUSES = {
  PENDING: { id: 1, value: 'PENDING', title: 'Não iniciado' },
  PROCESSING: { id: 2, value: 'PROCESSING', title: 'Em processamento' },
  APPROVED: { id: 3, value: 'APPROVED', title: 'Aprovado' },
  DENIED: { id: 4, value: 'DENIED', title: 'Negado' },
  MANUAL_ANALYSIS: { id: 5, value: 'MANUAL_ANALYSIS', title: 'Em análise manual' },
  FAILED: { id: 6, value: 'FAILED', title: 'Falha no processamento' },
} as const;

export type ReportStatus = keyof typeof REPORT_STATUSES;

/** What a decision (by the policy or by an analyst) can say. */
export type Decision = 'APPROVED' | 'DENIED' | 'MANUAL_ANALYSIS';

/** policyStatus: PENDING until the policy decides, then the latest decision. */
export type PolicyStatus = 'PENDING' | Decision;

export function statusObject(status: string): { id: number; value: string; title: string } {
  const known = REPORT_STATUSES[status as ReportStatus];
  return known ? { ...known } : { id: 0, value: status, title: status };
}
