/**
 * A proposal's states. The spec names the open ones; the terminal ones are ours: REJECTED
 * (the dashboard's "rejected"), EXPIRED and CANCELED (its "closed": expired or canceled) and
 * ISSUED (the operation was issued by the lender's system).
 */
export type ProposalStatus = 'DRAFT' | 'IN_ANALYSIS' | 'WAITING_OPERATOR' | 'WAITING_CUSTOMER' | 'OFFER_ISSUED' | 'REJECTED' | 'EXPIRED' | 'CANCELED' | 'ISSUED';

export const PROPOSAL_STATUSES: readonly ProposalStatus[] = ['DRAFT', 'IN_ANALYSIS', 'WAITING_OPERATOR', 'WAITING_CUSTOMER', 'OFFER_ISSUED', 'REJECTED', 'EXPIRED', 'CANCELED', 'ISSUED'];

export const TERMINAL_STATUSES: readonly ProposalStatus[] = ['REJECTED', 'EXPIRED', 'CANCELED', 'ISSUED'];
export const isTerminal = (status: ProposalStatus) => TERMINAL_STATUSES.includes(status);

/**
 * What PATCH /status may do: an operator's hand on the state machine. Moves the pipeline makes
 * (analysis, offers, firm offer) are not here: they come with their events, not by a status write.
 */
export const MANUAL_MOVES: Readonly<Record<ProposalStatus, readonly ProposalStatus[]>> = {
  DRAFT: ['WAITING_OPERATOR', 'CANCELED'],
  IN_ANALYSIS: ['WAITING_OPERATOR', 'REJECTED', 'CANCELED'],
  WAITING_OPERATOR: ['IN_ANALYSIS', 'REJECTED', 'CANCELED'],
  WAITING_CUSTOMER: ['WAITING_OPERATOR', 'EXPIRED', 'CANCELED'],
  OFFER_ISSUED: ['ISSUED', 'EXPIRED', 'CANCELED'],
  REJECTED: [],
  EXPIRED: [],
  CANCELED: [],
  ISSUED: [],
};
