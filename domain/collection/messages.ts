/** Texts of the collection module the contract leaves to us (all "ours"); the contract's own live in domain/shared/messages.ts. */
export const CollectionMessages = {
  alreadySent: 'Esta solicitação já foi enviada.',
  notSent: 'Esta solicitação ainda não foi enviada.',
  itemNotFound: 'Item não encontrado.',
  recipientNotFound: 'Destinatário não encontrado.',
  itemResolved: 'Este item já foi resolvido.',
  itemNotAwaitingOperator: 'Este item não aguarda decisão do operador.',
  itemNotOfRecipient: 'Este item não foi pedido a este destinatário.',
  itemNotAFile: 'Este item não é respondido com um arquivo.',
  noItems: 'A solicitação precisa de ao menos um item.',
  noRecipients: 'A solicitação precisa de ao menos um destinatário.',
  unknownItemKey: 'O destinatário responde a um item que não existe na solicitação.',
  duplicateItemKey: 'Dois itens da solicitação têm a mesma chave.',
  rejectReasonRequired: 'Informe o motivo da recusa.',
  subjectOrRegistry: 'Informe registryId ou subject.',
  templateOrItems: 'Informe templateSlug ou items.',
  invalidDocument: 'CPF ou CNPJ inválido.',
  invalidPhone: 'Telefone inválido: use o formato E.164 (por exemplo +5511999998888).',
  registryNotFound: 'Cadastro não encontrado.',
  templateNoItems: 'O modelo não tem itens para este tipo de cadastro.',
  recipientWithoutContact: 'O destinatário precisa de e-mail ou telefone.',
} as const;

/** IDENTITY items (and the identity check of a SIGNATURE item with flow SIGNATURE_AND_IDENTITY). */
export const IdentityMessages = {
  notAnIdentityItem: 'Este item não pede verificação de identidade.',
  notAwaitingCheck: 'Este item não aguarda uma verificação de identidade.',
  checkNotFound: 'Verificação de identidade não encontrada.',
  imageNotFound: 'Imagem não encontrada.',
  imagesRequired: 'Envie a foto do documento (campo document) e a selfie (campo selfie) em JPEG ou PNG.',
  providerUnavailable: 'Não foi possível verificar a identidade agora. Tente novamente em alguns minutos.',
} as const;
