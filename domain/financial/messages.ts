/** Texts of the financial statements extraction (ours: the spec gives none), shown in the BALANCE_SHEET section's errors. */
export const FinancialExtractionMessages = {
  nothingRead: 'Nenhuma linha de balanço patrimonial ou de demonstração do resultado foi reconhecida nos arquivos enviados.',
  fileMissing: (fileName: string) => `O arquivo ${fileName} não está mais no armazenamento: envie as demonstrações novamente.`,
  unavailable: 'Não foi possível ler as demonstrações financeiras depois de várias tentativas. Envie os arquivos novamente.',
} as const;
