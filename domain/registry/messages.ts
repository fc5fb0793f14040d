/** The registry module's own texts (the contract gives none for these routes). */
export const RegistryMessages = {
  registryNotFound: 'Cadastro não encontrado.',
  documentNotFound: 'Documento não encontrado.',
  registryExists: 'Já existe um cadastro com este CPF/CNPJ.',
  entityTypeMismatch: 'O tipo de pessoa não corresponde ao documento (CPF para PERSON, CNPJ para COMPANY).',
  unsupportedFile: 'Tipo de arquivo não aceito: envie PDF, JPEG ou PNG.',
  emptyFile: 'Arquivo vazio ou corrompido.',
  fileTooLarge: (megabytes: string) => `O arquivo excede o limite de ${megabytes} MB.`,
  stillAnalysing: 'O documento ainda está em análise. Aguarde o parecer.',
  documentExists: 'Este documento já foi recebido.',
  invalidPhone: (phone: string) => `Telefone inválido: ${phone}.`,
  fileMissing: 'O arquivo deste documento não está mais disponível.',
};
