/**
 * The management dashboard's and export's 400/429 texts. Most are the spec's exact strings
 * (Errors: "Dashboard and export 400 messages"); the spec gives only the meaning of the sla and
 * 429 texts, worded here. The ones already shared with other routes (from, to, period, product)
 * stay in domain/shared/messages.ts. Kept in one file so the dashboard and its export answer alike.
 */
export const DashboardMessages = {
  badCompare: 'A comparação precisa ser true ou false.',
  badOrigin: 'A origem informada não é válida.',
  badCorrespondent: 'O correspondente informado não é válido.',
  badAgent: 'O atendente informado não é válido.',
  badPortfolio: 'A carteira informada não é válida.',
  badEntityType: 'O tipo de pessoa informado não é válido.',
  badStatus: 'A situação informada não é válida.',
  badDim: 'A quebra informada não é válida.',
  badSla: 'O sla precisa estar no formato SITUACAO:dias, separados por vírgula (ex.: WAITING_OPERATOR:2,IN_ANALYSIS:1).',
  exportBusy: 'Outra exportação do painel gerencial da sua organização, com outros filtros, está em andamento. Aguarde o término e tente novamente.',
} as const;
