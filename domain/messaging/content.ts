import type { MessageChannel, MessageTemplate } from './events.ts';

/**
 * What a message says, given by the module that queues it: the texts are built from it when the
 * message leaves (templates.ts), so a wording fix reaches messages still waiting to be sent.
 */
export interface MessageContent {
  /** The recipient's personal link (`/c/<token>`), or for a platform user the page in the console; null when the message carries none. */
  link: string | null;
  /** Whom the documents are about (the registry's person or company). */
  subjectName: string;
  organizationName: string;
  /** The operator's own words to the recipient, shown as given. */
  operatorMessage: string | null;
  /** Titles of what the recipient still has to send. */
  pendingItems: string[];
  /** ISO date-time after which the link stops working. */
  expiresAt: string | null;
  /** SIGNATURE_CODE: the one-time code a party types to sign (valid until expiresAt). */
  code?: string;
  /** FINANCIAL_STATEMENTS_*: the batch a platform user sent to a report, and what came of it. */
  financial?: FinancialNotice;
  /** OFFER_LINK: the product and the most the customer may choose (the link opens the offer page). */
  offer?: { productName: string; maxAmountCents: number; maxTermMonths: number };
}

export interface FinancialNotice {
  reportId: string;
  /** The report's CNPJ or CPF, masked as people read it. */
  document: string;
  /** The files' names, in the order they were sent. */
  files: string[];
  /** The period ends read (YYYY-MM-DD), latest first; empty when nothing could be read. */
  periods: string[];
  /** Why nothing could be read (FINANCIAL_STATEMENTS_FAILED). */
  reason: string | null;
}

export const MESSAGE_CHANNELS: readonly MessageChannel[] = ['EMAIL', 'WHATSAPP', 'SMS'];
export const MESSAGE_TEMPLATES: readonly MessageTemplate[] = [
  'COLLECTION_INVITE',
  'COLLECTION_REMINDER',
  'COLLECTION_COMPLETED',
  'SIGNATURE_CODE',
  'FINANCIAL_STATEMENTS_EXTRACTED',
  'FINANCIAL_STATEMENTS_FAILED',
  'OFFER_LINK',
];

/**
 * Statuses of the read model, in the order a message moves through them. NOT_SENT (ours, beside the
 * contract's four) ends a message no channel could carry: nothing left the machine.
 */
export type MessageStatus = 'PENDING' | 'SENT' | 'DELIVERED' | 'FAILED' | 'NOT_SENT';
