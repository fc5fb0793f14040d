import { isValidSla, SLA_STATUSES } from '../catalog/settings.ts';

export type SlaStatus = (typeof SLA_STATUSES)[number];
/** Days allowed per status; a status the sla does not name has no limit (never out of sla). */
export type Sla = Partial<Record<SlaStatus, number>>;

/** The sla text in its `STATUS:days,...` form, or null when it is not in that form. */
export function parseSla(text: string): Sla | null {
  if (!isValidSla(text)) return null;
  return Object.fromEntries(text.split(',').map((part) => [part.split(':')[0], Number(part.split(':')[1])])) as Sla;
}

/**
 * Open states for indicators (spec, Proposal): WAITING_OPERATOR, IN_ANALYSIS, WAITING_CUSTOMER
 * and DRAFT only when the sla names it; in this order in aging.
 */
export function openStatuses(sla: Sla): SlaStatus[] {
  return [...('DRAFT' in sla ? (['DRAFT'] as const) : []), 'IN_ANALYSIS', 'WAITING_OPERATOR', 'WAITING_CUSTOMER'];
}
