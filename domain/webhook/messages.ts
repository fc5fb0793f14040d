/**
 * Texts of the webhook module that the spec leaves to us ("ours"); contract texts stay in
 * domain/shared/messages.ts.
 */
export const WebhookMessages = {
  /** The legacy DELETE's 404: the spec calls it a data-layer text saying the record to delete does not exist. */
  recordToDeleteNotFound: 'Record to delete does not exist.',
  subscriptionNotFound: 'Assinatura de webhook não encontrada.',
  deliveryNotFound: 'Entrega de webhook não encontrada.',
  invalidUrl: 'A URL do webhook precisa ser http ou https, sem usuário e senha, com até 2048 caracteres.',
  internalAddress: 'A URL do webhook aponta para um endereço interno.',
  noEvents: 'events must contain at least 1 elements',
  unknownEvent: (name: string) => `Evento de webhook desconhecido: ${name}.`,
  nothingToUpdate: 'Informe url, events ou description.',
  subscriptionDisabled: 'A assinatura de webhook está desativada.',
  /** Body of the test POST sent before a legacy subscription is saved. */
  testMessage: 'Teste de webhook: se você recebeu esta mensagem, a URL está pronta para receber eventos.',
} as const;
