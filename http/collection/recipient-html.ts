import { SANDBOX_MARK } from '../../domain/shared/provenance.ts';
import type { ItemStatus } from '../../domain/collection/enums.ts';
import { escape } from '../../domain/shared/html.ts';

/** What the person reads for each status: "em análise" covers everything waiting on us. */
const STATUS_LABELS: Record<ItemStatus, string> = {
  PENDING: 'Pendente',
  ALREADY_ON_FILE: 'Já recebido anteriormente',
  SUBMITTED: 'Em análise',
  PROCESSING: 'Em análise',
  VALIDATED: 'Aprovado',
  REJECTED: 'Recusado: envie novamente',
  MANUAL_REVIEW: 'Em análise',
  AWAITING_OPERATOR: 'Em análise',
  WAIVED: 'Dispensado',
  EXPIRED: 'Expirado',
};

export const RecipientPageTexts = {
  linkInvalidTitle: 'Link inválido',
  linkInvalid: 'Este link não é válido. Se você recebeu um link mais novo, use-o.',
  closedTitle: 'Solicitação encerrada',
  closed: 'Esta solicitação foi encerrada e não recebe mais documentos.',
  itemGone: 'Este item não faz parte da sua solicitação.',
  notSentTitle: 'Solicitação ainda não enviada',
  sent: 'Arquivo recebido. Ele está em análise.',
  sandbox: 'Esta página é de um ambiente de testes: nada do que ela registra é real; não envie documentos verdadeiros.',
} as const;

/** One small page that reads well on a phone: no external assets, the viewport set, large controls. */
export function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><meta name="referrer" content="no-referrer"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:0;padding:1rem;max-width:36rem;margin-inline:auto;color:#1a1a1a}
h1{font-size:1.4rem}ul{list-style:none;padding:0}li{border:1px solid #ddd;border-radius:.5rem;padding:.8rem;margin:.8rem 0}
.estado{font-weight:600}.pendente{color:#a60}.analise{color:#05a}.ok{color:#0a5}.recusado{color:#c00}
input,button{font-size:1.05rem;width:100%;padding:.6rem;box-sizing:border-box;margin-top:.5rem}
button{background:#0a5;color:#fff;border:0;border-radius:.4rem}.erro{background:#fde;padding:.6rem;border-radius:.4rem}
.aviso{background:#eef6ff;padding:.6rem;border-radius:.4rem}.mensagem{white-space:pre-wrap;background:#f5f5f5;padding:.6rem;border-radius:.4rem}</style></head>
<body>${content}</body></html>`;
}

/**
 * The page with the sandbox banner first in its body: nothing a recipient or visitor sends to a
 * sandbox deployment is real. Applied to every public page's reply in one place
 * (http/public-routes.ts), so no page, refusal or message of a sandbox deployment misses it.
 */
export function withRecipientSandboxBanner(html: string): string {
  return html.replace('<body>', `<body><p class="erro" role="alert" data-sandbox><strong>${escape(SANDBOX_MARK)}</strong> · ${escape(RecipientPageTexts.sandbox)}</p>`);
}

export const messagePage = (title: string, message: string) => page(title, `<h1>${escape(title)}</h1><p>${escape(message)}</p>`);

export interface PageItem {
  itemId: string;
  title: string;
  instructions: string | null;
  status: ItemStatus;
  resendReason: string | null;
  /** A DOCUMENT or CUSTOM item still waiting on this person: it gets an upload form. */
  uploadable: boolean;
  /** The HTML of another kind's controls (form, term, camera, signature), already escaped by its kind. */
  controls: string | null;
}

export interface RecipientPageData {
  token: string;
  organizationName: string | null;
  recipientName: string;
  message: string | null;
  expiresAt: string | null;
  items: PageItem[];
  notice?: string;
  error?: string;
}

const statusClass = (status: ItemStatus) => (status === 'PENDING' ? 'pendente' : status === 'REJECTED' ? 'recusado' : ['VALIDATED', 'ALREADY_ON_FILE', 'WAIVED'].includes(status) ? 'ok' : 'analise');

function itemHtml(token: string, item: PageItem): string {
  const form = item.uploadable
    ? `<form method="post" action="/c/${encodeURIComponent(token)}/items/${item.itemId}" enctype="multipart/form-data">
<label>Arquivo (PDF, JPEG ou PNG)<input type="file" name="file" accept="application/pdf,image/jpeg,image/png" required></label>
<button type="submit">Enviar</button></form>`
    : '';
  return `<li id="item-${item.itemId}"><strong>${escape(item.title)}</strong>
<p class="estado ${statusClass(item.status)}" data-status="${item.status}">${escape(STATUS_LABELS[item.status])}</p>
${item.instructions ? `<p>${escape(item.instructions)}</p>` : ''}
${item.status === 'REJECTED' && item.resendReason ? `<p class="erro">${escape(item.resendReason)}</p>` : ''}${form}${item.controls ?? ''}</li>`;
}

/** The recipient's page: who asks, their message, this person's items only, a form per pending file. */
export function recipientPage(d: RecipientPageData): string {
  const who = d.organizationName ? escape(d.organizationName) : 'A empresa';
  const until = d.expiresAt ? `<p>Prazo: até ${escape(new Date(d.expiresAt).toLocaleDateString('pt-BR', { timeZone: 'America/Sao_Paulo' }))}.</p>` : '';
  return page(
    'Envio de documentos',
    `<h1>Olá, ${escape(d.recipientName)}</h1>
<p>${who} pediu os documentos abaixo.</p>
${d.message ? `<p class="mensagem">${escape(d.message)}</p>` : ''}${until}
${d.notice ? `<p class="aviso" role="status">${escape(d.notice)}</p>` : ''}${d.error ? `<p class="erro" role="alert">${escape(d.error)}</p>` : ''}
<ul>${d.items.map((item) => itemHtml(d.token, item)).join('\n')}</ul>`,
  );
}
