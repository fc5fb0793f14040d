/** Statuses the dashboard's `sla` names, in its `STATUS:days,...` form. */
export const SLA_STATUSES = ['DRAFT', 'IN_ANALYSIS', 'WAITING_CUSTOMER', 'WAITING_OPERATOR'] as const;
const SLA_PATTERN = new RegExp(`^(?:${SLA_STATUSES.join('|')}):\\d{1,3}(?:,(?:${SLA_STATUSES.join('|')}):\\d{1,3})*$`);

/** What a lender configures for its proposals. */
export interface ProposalSettings {
  indicativeOfferValidityDays: number;
  firmOfferValidityDays: number;
  customerLinkValidityHours: number;
  /** Portfolio of a proposal created without one; null leaves it without a portfolio. */
  defaultPortfolioId: string | null;
  /** false: a final approval by policy issues the firm offer without an operator's word. */
  finalApprovalRequiresOperator: boolean;
  /** The dashboard's default `sla` when a query gives none: `STATUS:days` separated by commas. */
  dashboardSla: string;
  /** Texts of the public offer page. A null display name shows the organization's name. */
  publicPage: { lenderDisplayName: string | null; supportEmail: string | null; supportPhone: string | null };
}

/** What an organization that never saved its settings gets (the spec's dashboard sla default). */
export const DEFAULT_PROPOSAL_SETTINGS: ProposalSettings = {
  indicativeOfferValidityDays: 7,
  firmOfferValidityDays: 5,
  customerLinkValidityHours: 72,
  defaultPortfolioId: null,
  finalApprovalRequiresOperator: true,
  dashboardSla: 'WAITING_OPERATOR:2,IN_ANALYSIS:1,WAITING_CUSTOMER:7',
  publicPage: { lenderDisplayName: null, supportEmail: null, supportPhone: null },
};

export function isValidSla(sla: string): boolean {
  if (!SLA_PATTERN.test(sla)) return false;
  const statuses = sla.split(',').map((part) => part.split(':')[0]);
  return new Set(statuses).size === statuses.length;
}
