/** The operation module's own Portuguese texts (the spec gives none of these): ours. */
export const OperationMessages = {
  operationNotFound: 'Operação não encontrada.',
  executionNotFound: 'Execução não encontrada.',
  operationAlreadyExists: 'Esta operação já existe.',
  stepNeedsCollections:
    'As etapas de coleta (COLLECTION) e de assinatura de contrato (CONTRACT_SIGNATURE) ainda não estão disponíveis: o módulo de coletas não existe.',
  noSteps: 'A operação precisa de ao menos uma etapa.',
  duplicateEntityType: 'Cada tipo de pessoa pode aparecer uma única vez.',
  policyMissingForEntityType: 'A etapa POLICY_REPORT precisa de uma política para cada tipo de pessoa da operação.',
  policyForOtherEntityType: 'A etapa POLICY_REPORT tem política para um tipo de pessoa que a operação não atende.',
  preApprovalRange: 'A pré-aprovação precisa de mínimos menores ou iguais aos máximos.',
  finalApprovalByPolicyNeedsReport: 'A aprovação final pela política precisa de uma etapa POLICY_REPORT antes dela.',
  choiceNeedsPreApproval: 'A etapa WAIT_CUSTOMER_CHOICE precisa de uma etapa PRE_APPROVAL antes dela.',
  firmOfferNeedsChoice: 'A etapa ISSUE_FIRM_OFFER precisa de uma etapa WAIT_CUSTOMER_CHOICE antes dela.',
  repeatedStep: 'As etapas PRE_APPROVAL, WAIT_CUSTOMER_CHOICE, FINAL_APPROVAL e ISSUE_FIRM_OFFER aparecem no máximo uma vez.',
  entityTypeNotServed: 'Esta operação não atende o tipo de pessoa da proposta.',
  executionRunning: 'Esta operação já está em execução para esta proposta.',
  executionFinished: 'Esta execução já foi encerrada.',
  executionNotWaitingOperator: 'Esta execução não está aguardando a decisão de um operador.',
  executionNotWaitingChoice: 'Esta execução não está aguardando a escolha do cliente.',
  executionNotClosable: 'Esta execução ainda não emitiu a oferta firme e não pode ser encerrada.',
  executionClosedOtherwise: 'Esta execução já foi encerrada com outra situação ou outra data.',
  invalidCloseDate: 'A data precisa estar no formato AAAA-MM-DD e ser uma data válida.',
  reportLinkFailed: 'O relatório foi criado, mas não foi possível vinculá-lo à proposta. Consulte o relatório pelo reportId antes de repetir.',
  // Reasons an execution FAILED (ExecutionFinished.reason)
  productRateUnavailable: 'O produto da proposta não tem taxa para a oferta (produto sem precificação ou índice sem valor).',
  reportFailed: 'O relatório da política não pôde ser processado.',
} as const;
