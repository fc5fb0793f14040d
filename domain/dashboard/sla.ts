import type { Sla, SlaStatus } from './filters.ts';

/**
 * Open states for indicators (spec, Proposal): WAITING_OPERATOR, IN_ANALYSIS, WAITING_CUSTOMER
 * and DRAFT only when the sla names it; in this order in aging.
 */
export function openStatuses(sla: Sla): SlaStatus[] {
  return [...('DRAFT' in sla ? (['DRAFT'] as const) : []), 'IN_ANALYSIS', 'WAITING_OPERATOR', 'WAITING_CUSTOMER'];
}
