import { ConfigurationError } from '../../../config/index.ts';
import type { MessageContent } from '../../../domain/messaging/content.ts';
import type { MessageTemplate } from '../../../domain/messaging/events.ts';
import { MESSAGE_TEMPLATES } from '../../../domain/messaging/content.ts';
import { formatDeadline, periodEnd } from '../../../domain/messaging/templates.ts';
import { formatBRL } from '../../../domain/shared/money.ts';

/** What a template's parameter is filled from: the addressee's name and the message's content. */
interface TemplateInput {
  recipientName: string;
  content: MessageContent;
}

/**
 * The values a template's parameters may name, in the order an operator writes them in
 * WHATSAPP_TEMPLATES. Null when the message has none (the parameter then reads NO_VALUE: Meta
 * refuses an empty parameter).
 */
const PARAMETERS = {
  recipientName: (m: TemplateInput) => m.recipientName,
  organizationName: (m: TemplateInput) => m.content.organizationName,
  subjectName: (m: TemplateInput) => m.content.subjectName,
  link: (m: TemplateInput) => m.content.link,
  deadline: (m: TemplateInput) => (m.content.expiresAt ? `${formatDeadline(m.content.expiresAt)} (horário de Brasília)` : null),
  code: (m: TemplateInput) => m.content.code ?? null,
  operatorMessage: (m: TemplateInput) => m.content.operatorMessage,
  pendingItems: (m: TemplateInput) => (m.content.pendingItems.length ? m.content.pendingItems.join('; ') : null),
  productName: (m: TemplateInput) => m.content.offer?.productName ?? null,
  maxAmount: (m: TemplateInput) => (m.content.offer ? formatBRL(m.content.offer.maxAmountCents) : null),
  maxTermMonths: (m: TemplateInput) => (m.content.offer ? String(m.content.offer.maxTermMonths) : null),
  reportId: (m: TemplateInput) => m.content.financial?.reportId ?? null,
  document: (m: TemplateInput) => m.content.financial?.document ?? null,
  files: (m: TemplateInput) => (m.content.financial?.files.length ? m.content.financial.files.join('; ') : null),
  periods: (m: TemplateInput) => (m.content.financial?.periods.length ? m.content.financial.periods.map(periodEnd).join('; ') : null),
  reason: (m: TemplateInput) => m.content.financial?.reason ?? null,
} satisfies Record<string, (m: TemplateInput) => string | null>;

export type TemplateParameter = keyof typeof PARAMETERS;
const PARAMETER_NAMES = Object.keys(PARAMETERS) as TemplateParameter[];
const NO_VALUE = '-';

/**
 * One approved template of the WhatsApp Business account: its name and language as registered
 * with Meta, the values of its body's {{1}}, {{2}}, ... in order, and the value of its first
 * button when it has a dynamic one (a URL button's suffix, or the code of an authentication
 * template's copy-code button, which Meta requires there too).
 */
export interface WhatsAppTemplate {
  name: string;
  language: string;
  body: TemplateParameter[];
  button?: TemplateParameter;
}

/**
 * Every message kind the service sends, with the template docs/messaging.md gives a text for: a
 * lender registers those texts (or its own, then sets WHATSAPP_TEMPLATES) with Meta. Record<>
 * keeps a new kind from shipping without one.
 */
export const DEFAULT_WHATSAPP_TEMPLATES: Record<MessageTemplate, WhatsAppTemplate> = {
  COLLECTION_INVITE: { name: 'convite_envio_documentos', language: 'pt_BR', body: ['recipientName', 'organizationName', 'subjectName', 'link', 'deadline'] },
  COLLECTION_REMINDER: { name: 'lembrete_documentos_pendentes', language: 'pt_BR', body: ['recipientName', 'subjectName', 'organizationName', 'pendingItems', 'link', 'deadline'] },
  COLLECTION_COMPLETED: { name: 'documentos_recebidos', language: 'pt_BR', body: ['recipientName', 'subjectName', 'organizationName'] },
  SIGNATURE_CODE: { name: 'codigo_assinatura', language: 'pt_BR', body: ['code'], button: 'code' },
  FINANCIAL_STATEMENTS_EXTRACTED: { name: 'demonstracoes_processadas', language: 'pt_BR', body: ['recipientName', 'subjectName', 'periods', 'link'] },
  FINANCIAL_STATEMENTS_FAILED: { name: 'demonstracoes_nao_lidas', language: 'pt_BR', body: ['recipientName', 'subjectName', 'reason', 'link'] },
  OFFER_LINK: { name: 'oferta_credito', language: 'pt_BR', body: ['recipientName', 'organizationName', 'productName', 'maxAmount', 'maxTermMonths', 'link', 'deadline'] },
};

// Meta's rules: template names are lower case letters, digits and underscores; languages are its codes (pt_BR, en_US, es).
const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/;
const LANGUAGE = /^[a-z]{2,3}(?:_[A-Z]{2})?$/;

function templateOf(kind: string, value: unknown): WhatsAppTemplate {
  const where = `WHATSAPP_TEMPLATES.${kind}`;
  const given = value as Partial<Record<keyof WhatsAppTemplate, unknown>> | null;
  if (!given || typeof given !== 'object' || Array.isArray(given)) throw new ConfigurationError(`${where} must be an object {name, language, body[, button]}`);
  const unknownKeys = Object.keys(given).filter((key) => !['name', 'language', 'body', 'button'].includes(key));
  if (unknownKeys.length) throw new ConfigurationError(`${where} has unknown keys: ${unknownKeys.join(', ')}`);
  if (typeof given.name !== 'string' || !TEMPLATE_NAME.test(given.name)) throw new ConfigurationError(`${where}.name must be the template's name at Meta (lower case letters, digits, _)`);
  if (typeof given.language !== 'string' || !LANGUAGE.test(given.language)) throw new ConfigurationError(`${where}.language must be a Meta language code such as pt_BR`);
  const isParameter = (name: unknown): name is TemplateParameter => typeof name === 'string' && (PARAMETER_NAMES as string[]).includes(name);
  if (!Array.isArray(given.body) || !given.body.every(isParameter)) throw new ConfigurationError(`${where}.body must list parameters among: ${PARAMETER_NAMES.join(', ')}`);
  if (given.button !== undefined && !isParameter(given.button)) throw new ConfigurationError(`${where}.button must be one of: ${PARAMETER_NAMES.join(', ')}`);
  return { name: given.name, language: given.language, body: given.body, ...(given.button !== undefined ? { button: given.button } : {}) };
}

/**
 * The templates in force: the defaults, each kind WHATSAPP_TEMPLATES names replaced whole (JSON,
 * `{"COLLECTION_INVITE": {"name": "...", "language": "pt_BR", "body": ["recipientName", ...]}}`).
 * A mistake stops the dispatcher at start rather than failing every message at Meta.
 */
export function whatsAppTemplatesFrom(json: string | undefined): Record<MessageTemplate, WhatsAppTemplate> {
  if (json === undefined) return DEFAULT_WHATSAPP_TEMPLATES;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new ConfigurationError(`WHATSAPP_TEMPLATES is not JSON: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigurationError('WHATSAPP_TEMPLATES must be a JSON object keyed by message kind');
  const templates = { ...DEFAULT_WHATSAPP_TEMPLATES };
  for (const [kind, value] of Object.entries(parsed)) {
    if (!(MESSAGE_TEMPLATES as readonly string[]).includes(kind)) throw new ConfigurationError(`WHATSAPP_TEMPLATES names an unknown message kind ${kind}; kinds: ${MESSAGE_TEMPLATES.join(', ')}`);
    templates[kind as MessageTemplate] = templateOf(kind, value);
  }
  return templates;
}

/**
 * A parameter's text as Meta takes it: no line breaks, tabs or runs of spaces (error 132018),
 * never empty.
 */
const parameterText = (value: string | null) => value?.replace(/\s+/g, ' ').trim() || NO_VALUE;

/** The `template` object of a Cloud API message (type "template") for one message. */
export function templatePayload(template: WhatsAppTemplate, input: TemplateInput) {
  const text = (parameter: TemplateParameter) => ({ type: 'text' as const, text: parameterText(PARAMETERS[parameter](input)) });
  const components: object[] = [];
  if (template.body.length) components.push({ type: 'body', parameters: template.body.map(text) });
  if (template.button) components.push({ type: 'button', sub_type: 'url', index: '0', parameters: [text(template.button)] });
  return { name: template.name, language: { code: template.language }, components };
}
