/**
 * Texts of the financial statements upload. The spec's texts are contract constants (never
 * reword them); those marked "ours" are where the spec is silent.
 */
export const FinancialUploadMessages = {
  reportNotFound: 'Relatório não encontrado',
  onlyPdf: 'Apenas arquivos PDF são aceitos.',
  tooLarge: 'Arquivo maior que 50MB.',
  invalidKey: 'Key de upload inválida.',
  notInStorage: 'Arquivo não encontrado no armazenamento. Refaça o upload.',
  emptyOrCorrupted: 'Arquivo vazio ou corrompido.',
  onlyValidPdf: 'Apenas arquivos PDF válidos são aceitos.',
  uploadLinkExpired: 'O link de upload expirou. Solicite um novo em /financial-tab/presign.', // ours
  uploadLinkInvalid: 'Link de upload inválido, ou Content-Type e Content-Length diferentes dos informados no presign.', // ours
  storageUnavailable: 'Não foi possível acessar o armazenamento de arquivos.', // ours, in the spec's 502 style
} as const;
