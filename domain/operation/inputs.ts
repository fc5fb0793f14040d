import type { ProposalState } from '../proposal/state.ts';

/**
 * The proposal's input keys (spec, Input data: `proposta.*`) as a policy reads them:
 * `inputs.proposta.valor_pedido` and so on. Amounts in reais, as the spec says for this key.
 */
export function proposalInputs(proposal: ProposalState): Record<string, unknown> {
  const created = proposal.created!;
  const cents = created.requestedAmountCents ?? created.fixedAmountCents;
  return {
    proposta: {
      valor_pedido: cents === null ? null : cents / 100,
      prazo_pedido: created.requestedTermMonths,
      produto: created.productKey,
      carteira: created.portfolioName,
      tipo: created.kind,
      origem: created.origin,
      tipo_pessoa: created.entityType === 'COMPANY' ? 'PJ' : 'PF',
      participantes_qtd: proposal.participants.length,
      avalistas_qtd: proposal.participants.filter((p) => p.role === 'GUARANTOR').length,
    },
  };
}
