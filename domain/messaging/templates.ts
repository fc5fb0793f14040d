import type { FinancialNotice, MessageContent } from './content.ts';
import type { MessageTemplate } from './events.ts';
import { escape } from '../shared/html.ts';

/** A message ready for a channel: e-mail uses all three, chat only the plain text. */
export interface RenderedMessage {
  subject: string;
  text: string;
  html: string;
}

/** Dates as a person in Brazil reads them (the deadline is a moment; shown in Brasília time). */
const DATE = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' });

export function formatDeadline(iso: string): string {
  return DATE.format(new Date(iso)).replace(', ', ' às ');
}

/** One block of a message: a paragraph, a list, or the link as a button. */
type Block = { kind: 'p'; text: string } | { kind: 'list'; title: string; items: string[] } | { kind: 'link'; label: string; url: string };

interface Draft {
  subject: string;
  greeting: string;
  blocks: Block[];
}

function pendingBlocks(content: MessageContent): Block[] {
  const blocks: Block[] = [];
  if (content.pendingItems.length) blocks.push({ kind: 'list', title: 'Itens pendentes:', items: content.pendingItems });
  if (content.link) blocks.push({ kind: 'link', label: 'Enviar documentos', url: content.link });
  if (content.expiresAt) blocks.push({ kind: 'p', text: `Prazo: até ${formatDeadline(content.expiresAt)} (horário de Brasília). Depois disso o link deixa de funcionar.` });
  return blocks;
}

/** A period end (YYYY-MM-DD) as printed on a balance sheet. */
export const periodEnd = (date: string) => date.split('-').reverse().join('/');

function batchBlocks(notice: FinancialNotice | undefined): Block[] {
  if (!notice) return [];
  return [{ kind: 'list', title: `Arquivos enviados ao relatório ${notice.reportId} (${notice.document}):`, items: notice.files }];
}

/** The report's page in the web console, for a platform user's notice. */
const reportLink = (content: MessageContent): Block[] => (content.link ? [{ kind: 'link', label: 'Abrir o relatório', url: content.link }] : []);

function operatorBlock(content: MessageContent): Block[] {
  return content.operatorMessage ? [{ kind: 'p', text: `Mensagem de ${content.organizationName}: "${content.operatorMessage}"` }] : [];
}

const DRAFTS: Record<MessageTemplate, (name: string, content: MessageContent) => Draft> = {
  COLLECTION_INVITE: (name, c) => ({
    subject: `${c.organizationName}: envio de documentos de ${c.subjectName}`,
    greeting: `Olá, ${name}.`,
    blocks: [
      { kind: 'p', text: `${c.organizationName} pede que você envie documentos referentes a ${c.subjectName}.` },
      ...operatorBlock(c),
      ...pendingBlocks(c),
      { kind: 'p', text: 'O link é pessoal: não o compartilhe.' },
    ],
  }),
  COLLECTION_REMINDER: (name, c) => ({
    subject: `Lembrete: documentos pendentes de ${c.subjectName} para ${c.organizationName}`,
    greeting: `Olá, ${name}.`,
    blocks: [{ kind: 'p', text: `Ainda faltam documentos referentes a ${c.subjectName} que ${c.organizationName} solicitou.` }, ...operatorBlock(c), ...pendingBlocks(c)],
  }),
  COLLECTION_COMPLETED: (name, c) => ({
    subject: `${c.organizationName}: documentos de ${c.subjectName} recebidos`,
    greeting: `Olá, ${name}.`,
    blocks: [
      { kind: 'p', text: `A solicitação de documentos referentes a ${c.subjectName} foi concluída. Obrigado pelo envio.` },
      { kind: 'p', text: `Nada mais é necessário agora; ${c.organizationName} entrará em contato se precisar.` },
    ],
  }),
  SIGNATURE_CODE: (name, c) => ({
    subject: `${c.organizationName}: código para assinar o documento de ${c.subjectName}`,
    greeting: `Olá, ${name}.`,
    blocks: [
      { kind: 'p', text: `Seu código para assinar o documento de ${c.subjectName} é ${c.code ?? ''}.` },
      { kind: 'p', text: c.expiresAt ? `Ele vale até ${formatDeadline(c.expiresAt)} (horário de Brasília) e só pode ser usado uma vez.` : 'Ele só pode ser usado uma vez.' },
      { kind: 'p', text: 'Não compartilhe este código. Se você não pediu para assinar, ignore esta mensagem.' },
    ],
  }),
  FINANCIAL_STATEMENTS_EXTRACTED: (name, c) => ({
    subject: `Demonstrações financeiras de ${c.subjectName} processadas`,
    greeting: `Olá, ${name}.`,
    blocks: [
      { kind: 'p', text: `As demonstrações financeiras que você enviou foram lidas e padronizadas.` },
      ...batchBlocks(c.financial),
      { kind: 'list', title: 'Períodos lidos:', items: (c.financial?.periods ?? []).map(periodEnd) },
      { kind: 'p', text: 'A seção de balanço do relatório já mostra os valores e os índices de liquidez, endividamento e margens.' },
      ...reportLink(c),
    ],
  }),
  FINANCIAL_STATEMENTS_FAILED: (name, c) => ({
    subject: `Não foi possível ler as demonstrações financeiras de ${c.subjectName}`,
    greeting: `Olá, ${name}.`,
    blocks: [
      { kind: 'p', text: `As demonstrações financeiras que você enviou não puderam ser lidas: ${c.financial?.reason ?? 'motivo não informado'}` },
      ...batchBlocks(c.financial),
      { kind: 'p', text: 'Envie de novo o balanço patrimonial e a DRE em PDF com texto (não digitalizado como imagem).' },
      ...reportLink(c),
    ],
  }),
  OFFER_LINK: (name, c) => ({
    subject: `${c.organizationName}: sua oferta de crédito${c.offer ? ` (${c.offer.productName})` : ''}`,
    greeting: `Olá, ${name}.`,
    blocks: [
      {
        kind: 'p',
        text: c.offer
          ? `${c.organizationName} tem uma oferta de ${c.offer.productName} para você: até ${reais(c.offer.maxAmountCents)} em até ${c.offer.maxTermMonths} meses.`
          : `${c.organizationName} tem uma oferta de crédito para você.`,
      },
      ...(c.link ? [{ kind: 'link' as const, label: 'Ver a oferta e escolher', url: c.link }] : []),
      ...(c.expiresAt ? [{ kind: 'p' as const, text: `A oferta vale até ${formatDeadline(c.expiresAt)} (horário de Brasília).` }] : []),
      { kind: 'p', text: 'O link é pessoal: não o compartilhe.' },
    ],
  }),
};

/** Cents as a person in Brazil reads money. */
const reais = (cents: number) => new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(cents / 100);

function blockText(block: Block): string {
  if (block.kind === 'p') return block.text;
  if (block.kind === 'list') return [block.title, ...block.items.map((item) => `- ${item}`)].join('\n');
  return `${block.label}: ${block.url}`;
}

function blockHtml(block: Block): string {
  if (block.kind === 'p') return `<p>${escape(block.text)}</p>`;
  if (block.kind === 'list') return `<p>${escape(block.title)}</p><ul>${block.items.map((item) => `<li>${escape(item)}</li>`).join('')}</ul>`;
  const url = escape(block.url);
  return `<p><a href="${url}" style="display:inline-block;padding:12px 20px;background:#1a56db;color:#fff;text-decoration:none;border-radius:6px">${escape(block.label)}</a></p><p style="font-size:12px;color:#555">Se o botão não abrir, copie este endereço: ${url}</p>`;
}

/** The subject, plain text and simple HTML of a template for one person. */
export function renderMessage(template: MessageTemplate, recipientName: string, content: MessageContent): RenderedMessage {
  const draft = DRAFTS[template](recipientName, content);
  const text = [draft.greeting, ...draft.blocks.map(blockText), content.organizationName].join('\n\n');
  const html = `<!doctype html><html lang="pt-BR"><body style="font-family:Arial,sans-serif;font-size:15px;line-height:1.5;color:#222;max-width:560px">${[
    `<p>${escape(draft.greeting)}</p>`,
    ...draft.blocks.map(blockHtml),
    `<p>${escape(content.organizationName)}</p>`,
  ].join('')}</body></html>`;
  return { subject: draft.subject, text, html };
}
