/** The messaging module's own Portuguese texts (the spec gives none); "ours" throughout. */
export const MessagingMessages = {
  noChannel: 'Informe ao menos um canal para a mensagem.',
  duplicateChannel: 'Um canal foi informado mais de uma vez.',
  invalidFallback: 'A ordem de canais da mensagem é inválida.',
  invalidChannelOrder: 'A ordem de canais deve ser uma lista de WHATSAPP, SMS e EMAIL, cada um no máximo uma vez, ou null.',
  notQueued: 'Mensagem não encontrada.',
  channelNotInMessage: 'Este canal não faz parte da mensagem.',
  noEmail: 'Destinatário sem e-mail cadastrado.',
  noPhone: 'Destinatário sem telefone cadastrado.',
  timeout: 'O canal não respondeu a tempo.',
  channelGaveUp: 'O canal já havia desistido desta mensagem.',
  withdrawnCollectionClosed: 'Mensagem não enviada: a solicitação foi encerrada antes do envio.',
  badSignature: 'Assinatura do provedor inválida.',
  badCallbackMessage: 'Mensagem do retorno do provedor inválida.',
  badVerifyToken: 'Token de verificação inválido.',
  /** NOT_SENT reasons: what kept the message on this machine, and the setting that would send it. */
  notSentEmailSandbox: 'Não enviada: nenhum servidor de e-mail configurado (SMTP_URL); o texto ficou só na caixa de saída local de testes.',
  notSentSmsSandbox: 'Não enviada: SMS em modo de testes (SMS_PROVIDER=sandbox); o texto ficou só na caixa de saída local de testes.',
  notSentSmsNone: 'Não enviada: nenhum provedor de SMS configurado (SMS_PROVIDER=none).',
  notSentWhatsAppSandbox: 'Não enviada: WhatsApp em modo de testes (WHATSAPP_PROVIDER=sandbox); o texto ficou só na caixa de saída local de testes.',
} as const;
