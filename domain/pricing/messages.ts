/** The pricing module's own texts (the spec gives none for these refusals). */
export const PricingMessages = {
  invalidReleaseDate: 'A data de liberação deve ser uma data válida no formato AAAA-MM-DD.',
  invalidFirstDueDate: 'A data do primeiro vencimento deve ser uma data válida no formato AAAA-MM-DD.',
  firstDueDateRange: 'O primeiro vencimento deve cair entre 1 e 180 dias após a data de liberação.',
  rateMissing: 'Informe a taxa: rateBpsYear, rate ({value, period}) ou index com spread.',
  rateAmbiguous: 'Informe a taxa de uma só forma: rateBpsYear, rate ou index com spread.',
  productNotFound: 'Produto não encontrado.',
  productWithoutPricing: 'Este produto não tem precificação (não concede crédito).',
  productAmountFixed: 'Este produto tem valor fixo; o valor informado deve ser igual a ele.',
  amountOutOfRange: (min: string, max: string) => `O valor deve estar entre ${min} e ${max}.`,
  termOutOfRange: (min: number, max: number) => `O prazo deve estar entre ${min} e ${max} meses.`,
  entityTypeNotServed: 'Este produto não atende este tipo de cliente.',
  feesExceedAmount: 'As tarifas e o IOF pagos na liberação não podem consumir todo o valor liberado.',
  invalidIndexDate: 'A data do índice deve ser uma data válida no formato AAAA-MM-DD.',
  indexDateInFuture: 'A data do índice não pode estar no futuro.',
  indexUnavailable: 'Não foi possível consultar o índice no Banco Central.',
} as const;
