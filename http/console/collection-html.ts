import { COLLECTION_STATUSES } from '../../domain/collection/enums.ts';
import type { CollectionState } from '../../domain/collection/state.ts';
import type { TrailEntry } from '../../projections/collection/trail-queries.ts';
import { csrfField, errorBox } from './html.ts';
import { escape } from '../../domain/shared/html.ts';

const DATE = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'medium' });
const when = (iso: string | null) => (iso ? DATE.format(new Date(iso)) : '—');

export function collectionListPage(items: readonly CollectionState[], total: number, status: string): string {
  const options = ['', ...COLLECTION_STATUSES].map((s) => `<option value="${s}"${s === status ? ' selected' : ''}>${s || 'Todas'}</option>`).join('');
  const lines = items
    .map(
      (c) =>
        `<tr><td><a href="/console/coletas/${escape(c.collectionId!)}">${escape(c.subject.name)}</a><br>${escape(c.subject.document)}</td><td>${escape(c.template?.name ?? '—')}</td><td>${escape(c.status)}</td><td>${c.items.filter((i) => i.resolvedAt).length} de ${c.items.length}</td><td>${when(c.createdAt)}</td></tr>`,
    )
    .join('');
  return `<form class="cartao filtros" method="get" action="/console/coletas"><label>Situação<select name="status">${options}</select></label><button class="primario" type="submit">Filtrar</button></form>
<section class="cartao"><p>${total} coleta(s); as 50 mais recentes.</p>${lines ? `<table><thead><tr><th>Para quem</th><th>Modelo</th><th>Situação</th><th>Itens resolvidos</th><th>Criada em</th></tr></thead><tbody>${lines}</tbody></table>` : '<p>Nenhuma coleta.</p>'}</section>`;
}

const INTAKE_TEXT = {
  UNLINKED:
    'Aberta por formulário público para um CPF/CNPJ que já tem cadastro. Nada do que foi enviado chega ao cadastro, aos dados de entrada ou ao KYC até um operador confirmar que é a mesma pessoa e vincular.',
  LINKED: 'Aberta por formulário público e vinculada ao cadastro',
  SELF_DECLARED: 'Aberta por formulário público: criou o cadastro, que tem só o que o visitante declarou.',
} as const;

/** A public form's intake: where it stands, and while unlinked the button that links it to the registry. */
function intakeSection(c: CollectionState, csrf: string, message?: string): string {
  const intake = c.intake;
  if (!intake) return '';
  const linked = intake.status === 'LINKED' ? `${INTAKE_TEXT.LINKED} em ${when(intake.linkedAt)} (${escape(intake.linkedBy?.actorType ?? '')}).` : INTAKE_TEXT[intake.status];
  const form =
    intake.status === 'UNLINKED'
      ? `<form method="post" action="/console/coletas/${escape(c.collectionId!)}/vincular">${csrfField(csrf)}<button class="primario" type="submit">Vincular ao cadastro</button></form>`
      : '';
  return `<section class="cartao"><h2>Origem: formulário público</h2>${errorBox(message)}<p>${linked}</p>${form}</section>`;
}

/** The collection, its items, its intake's link when a public form opened it, and its trail with the button that verifies the chain in the browser. */
export function collectionPage(c: CollectionState, trail: { total: number; entries: readonly TrailEntry[] }, csrf: string, message?: string): string {
  const items = c.items.map((i) => `<tr><td>${escape(i.title)}</td><td>${escape(i.kind)}</td><td>${escape(i.status)}</td><td>${when(i.resolvedAt)}</td></tr>`).join('');
  const entries = trail.entries
    .map(
      (e) =>
        `<tr><td>${e.seq}</td><td>${when(e.occurredAt)}</td><td><code>${escape(e.action)}</code></td><td>${escape(e.actorType)}</td><td>${e.seal ? 'selada' : ''}</td><td><code>${escape(e.chainHash.slice(0, 16))}…</code></td></tr>`,
    )
    .join('');
  return `<section class="cartao"><p class="estado">Situação: <strong>${escape(c.status)}</strong></p><p>${escape(c.subject.name)} · ${escape(c.subject.document)} · criada em ${when(c.createdAt)}${c.expiresAt ? ` · prazo ${when(c.expiresAt)}` : ''}</p></section>
${intakeSection(c, csrf, message)}
<section class="cartao"><h2>Itens</h2><table><thead><tr><th>Item</th><th>Tipo</th><th>Situação</th><th>Resolvido em</th></tr></thead><tbody>${items}</tbody></table></section>
<section class="cartao"><h2>Trilha de auditoria</h2><p>${trail.total} entrada(s)${trail.total > trail.entries.length ? `; as ${trail.entries.length} primeiras abaixo` : ''}. A verificação baixa a trilha inteira e confere, neste navegador, o hash de cada entrada, a cadeia, os selos e a cabeça assinada da exportação com as chaves publicadas em <code>/.well-known/collection-trail-keys</code>, e mostra a hora do carimbo do tempo de cada selo, conferindo que ele cobre o selo. A assinatura da autoridade de carimbo do tempo e a cadeia até a sua raiz são verificadas pelo verificador offline (<code>scripts/verify-trail.ts --tsa-ca</code>, docs/collection-trail.md), não aqui.</p>
<p><button class="primario" type="button" id="verificar-cadeia" data-exportacao="/console/coletas/${escape(c.collectionId!)}/trilha.json">Verificar cadeia</button></p><div id="veredito" role="status" aria-live="polite"></div>
<table><thead><tr><th>#</th><th>Quando</th><th>Ação</th><th>Quem</th><th>Selo</th><th>Cadeia</th></tr></thead><tbody>${entries}</tbody></table></section>`;
}
