import type { ProposalStatus } from '../../domain/proposal/statuses.ts';
import { PROPOSAL_STATUSES } from '../../domain/proposal/statuses.ts';
import type { ProposalRow } from '../../projections/proposal/queries.ts';
import type { presentedProposal } from '../proposal/routes.ts';
import { escape } from '../../domain/shared/html.ts';
import { centsOf, formatBRL } from '../../domain/shared/money.ts';

type Detail = Awaited<ReturnType<typeof presentedProposal>>;

const DATE = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'short' });
const when = (iso: string | Date) => DATE.format(new Date(iso));
const cents = (value: number | null | undefined) => (value === null || value === undefined ? '—' : formatBRL(value));

export const STATUS_LABELS: Record<ProposalStatus, string> = {
  DRAFT: 'Rascunho',
  IN_ANALYSIS: 'Em análise',
  WAITING_OPERATOR: 'Aguardando operador',
  WAITING_CUSTOMER: 'Aguardando cliente',
  OFFER_ISSUED: 'Oferta emitida',
  REJECTED: 'Recusada',
  EXPIRED: 'Expirada',
  CANCELED: 'Cancelada',
  ISSUED: 'Emitida',
};

export function proposalListPage(rows: readonly ProposalRow[], total: number, filter: { busca: string; status: string }): string {
  const options = ['', ...PROPOSAL_STATUSES].map((s) => `<option value="${s}"${filter.status === s ? ' selected' : ''}>${s ? STATUS_LABELS[s as ProposalStatus] : 'Todas'}</option>`).join('');
  const lines = rows
    .map(
      (p) =>
        `<tr><td><a href="/console/propostas/${escape(p.id)}">${escape(p.name)}</a><br>${escape(p.document)}</td><td>${escape(p.productName)}</td><td>${cents(p.requestedAmountCents)}${p.requestedTermMonths ? ` em ${p.requestedTermMonths} meses` : ''}</td><td>${STATUS_LABELS[p.status as ProposalStatus] ?? escape(p.status)}</td><td>${when(p.createdAt)}</td></tr>`,
    )
    .join('');
  return `<form class="cartao filtros" method="get" action="/console/propostas"><label>Nome ou documento<input name="busca" value="${escape(filter.busca)}"></label>
<label>Situação<select name="status">${options}</select></label><button class="primario" type="submit">Filtrar</button></form>
<section class="cartao"><p>${total} proposta(s); as 50 mais recentes.</p>${lines ? `<table><thead><tr><th>Cliente</th><th>Produto</th><th>Pedido</th><th>Situação</th><th>Criada em</th></tr></thead><tbody>${lines}</tbody></table>` : '<p>Nenhuma proposta.</p>'}</section>`;
}

export function proposalPage(p: Detail): string {
  const offers = p.rounds
    .flatMap((round) => round.offers)
    .map(
      (o) =>
        `<tr><td>${o.round}</td><td>${o.kind === 'FIRM' ? 'firme' : 'indicativa'}</td><td>${escape(o.status)}</td><td>${o.amountCents !== undefined ? cents(o.amountCents) : `${cents(o.minAmountCents)} a ${cents(o.maxAmountCents)}`}</td><td>${o.rate ? `${escape(o.rate.value)}% ao ${o.rate.period === 'MONTH' ? 'mês' : 'ano'}` : '—'}</td><td>${o.chosen ? `${cents(o.chosen.amountCents)} em ${o.chosen.termMonths} meses, parcela ${formatBRL(centsOf(o.chosen.terms.installment))}` : '—'}</td></tr>`,
    )
    .join('');
  const executions = p.executions
    .map(
      (e) =>
        `<li>${e.kind === 'REPORT' ? `<a href="/console/relatorios/${escape(e.targetId)}">relatório</a>` : 'operação'} de ${when(e.startedAt)}${e.decision ? `: ${e.decision === 'APPROVED' ? 'aprovada' : 'recusada'}` : ''}${e.step ? ` (${escape(e.step)})` : ''}</li>`,
    )
    .join('');
  const timeline = p.timeline.map((t) => `<li>${when(t.at)}: ${escape(t.description)}</li>`).join('');
  return `<section class="cartao"><p class="estado">Situação: <strong>${STATUS_LABELS[p.status as ProposalStatus] ?? escape(p.status)}</strong></p>
<p>${escape(p.name)} · ${escape(p.document)} · ${escape(p.productName)} · pedido ${cents(p.requestedAmountCents)}${p.requestedTermMonths ? ` em ${p.requestedTermMonths} meses` : ''}</p></section>
${offers ? `<section class="cartao"><h2>Ofertas</h2><table><thead><tr><th>Rodada</th><th>Tipo</th><th>Situação</th><th>Valor</th><th>Taxa</th><th>Escolha</th></tr></thead><tbody>${offers}</tbody></table></section>` : ''}
${executions ? `<section class="cartao"><h2>Análises</h2><ul>${executions}</ul></section>` : ''}
<section class="cartao"><h2>Histórico</h2><ul>${timeline}</ul></section><p><a href="/console/propostas">Voltar à lista</a></p>`;
}
