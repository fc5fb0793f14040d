import type { MessageContent } from './content.ts';
import type { MessageTemplate } from './events.ts';
import { formatDeadline } from './templates.ts';

/**
 * The text of a message sent by SMS: the code or the link and who sends it, nothing else. An SMS
 * in Portuguese with accents is UCS-2, 70 characters a segment (67 once split), and each segment
 * is paid for: the lists, the operator's words and the greeting of the e-mail stay out (the link's
 * page shows them). Platform users' notices are e-mail only, so they have no SMS text.
 */
const SMS_TEXTS: Record<MessageTemplate, (c: MessageContent) => string> = {
  COLLECTION_INVITE: (c) => `${c.organizationName}: envie os documentos de ${c.subjectName} em ${c.link ?? ''}`,
  COLLECTION_REMINDER: (c) => `${c.organizationName}: ainda faltam documentos de ${c.subjectName}. Envie em ${c.link ?? ''}`,
  COLLECTION_COMPLETED: (c) => `${c.organizationName}: recebemos os documentos de ${c.subjectName}. Obrigado.`,
  SIGNATURE_CODE: (c) => `${c.organizationName}: seu código para assinar é ${c.code ?? ''}${c.expiresAt ? `, válido até ${formatDeadline(c.expiresAt).slice(-5)} (Brasília)` : ''}. Não o compartilhe.`,
  FINANCIAL_STATEMENTS_EXTRACTED: (c) => `Demonstrações de ${c.subjectName} processadas: ${c.link ?? ''}`,
  FINANCIAL_STATEMENTS_FAILED: (c) => `Demonstrações de ${c.subjectName} não puderam ser lidas: ${c.link ?? ''}`,
  OFFER_LINK: (c) => `${c.organizationName}: sua oferta de crédito${c.offer ? ` (${c.offer.productName})` : ''} está em ${c.link ?? ''}`,
};

export function smsText(template: MessageTemplate, content: MessageContent): string {
  return SMS_TEXTS[template](content);
}
