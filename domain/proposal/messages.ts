import type { ProposalStatus } from './statuses.ts';

/** The proposal module's own texts (the spec's are in domain/shared/messages.ts). */
export const ProposalMessages = {
  offerNotFound: 'Oferta não encontrada.',
  participantNotFound: 'Participante não encontrado.',
  participantAlreadyAdded: 'Este participante já está na proposta.',
  proposalClosed: 'A proposta está encerrada e não pode mais ser alterada.',
  offerExpired: 'Esta oferta expirou.',
  expiredWithoutChoice: 'Oferta expirada sem a escolha do cliente.',
  offerNotChoosable: 'Somente ofertas indicativas podem ser escolhidas.',
  offerSuperseded: 'Esta oferta foi substituída por uma rodada mais recente.',
  alreadyClosed: 'Esta execução já foi encerrada com outro status ou data.',
  invalidOfferRange: 'Os limites da oferta são inválidos: o mínimo não pode passar do máximo.',
  statusMove: (from: ProposalStatus, to: ProposalStatus) => `Não é possível mudar a proposta de ${from} para ${to}.`,
  amountBelow: (min: number) => `O valor deve ser de no mínimo ${min} centavos.`,
  amountAbove: (max: number) => `O valor deve ser de no máximo ${max} centavos.`,
  termBelow: (min: number) => `O prazo deve ser de no mínimo ${min} meses.`,
  termAbove: (max: number) => `O prazo deve ser de no máximo ${max} meses.`,
  invalidPortfolio: 'A carteira informada não é válida.',
  offerLinkGone: 'Este link não abre mais: ele foi substituído por um novo ou não existe. Use o link mais recente que você recebeu.',
  offerUnavailable: 'Esta oferta não está mais disponível.',
  invalidChoiceForm: 'Informe um valor e um prazo válidos.',
  amountRequired: 'Informe requestedAmountCents: o produto não tem valor fixo.',
} as const;
