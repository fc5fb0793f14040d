/** Texts of the financial statements extraction (ours: the spec gives none), shown in the BALANCE_SHEET section's errors. */
export const FinancialExtractionMessages = {
  nothingRead: 'Nenhuma linha de balanço patrimonial ou de demonstração do resultado foi reconhecida nos arquivos enviados.',
  fileMissing: (fileName: string) => `O arquivo ${fileName} não está mais no armazenamento: envie as demonstrações novamente.`,
  unavailable: 'Não foi possível ler as demonstrações financeiras depois de várias tentativas. Envie os arquivos novamente.',
  /** Scans OCR could not read (`reason`: platform/ocr.ts's, e.g. Tesseract not installed, which says they go to manual review in the registry). */
  scansUnread: (fileNames: readonly string[], reason: string) => `Demonstrações digitalizadas não lidas (${fileNames.join(', ')}). ${reason}`,
} as const;
