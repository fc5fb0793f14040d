import type { loadDashboard } from '../../application/dashboard/dashboard.ts';
import { INDICATOR_NAMES } from '../../domain/dashboard/indicators.ts';
import { errorBox } from './html.ts';
import { escape } from '../../domain/shared/html.ts';
import { formatBRL } from '../../domain/shared/money.ts';

type Dashboard = Awaited<ReturnType<typeof loadDashboard>>;

const DAY = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', day: '2-digit', month: '2-digit' });
const DATE = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', dateStyle: 'short' });

const LABELS: Record<(typeof INDICATOR_NAMES)[number], string> = {
  received: 'Propostas recebidas',
  requestedCents: 'Valor solicitado',
  approvalRate: 'Taxa de aprovação',
  issuedOfferedCents: 'Valor emitido',
  ticketCents: 'Ticket médio',
  timeToOfferDays: 'Dias até a oferta (mediana)',
  conversion: 'Conversão',
  openNow: 'Em aberto agora',
  outOfSla: 'Fora do SLA',
};
const STAGES = ['Recebidas', 'Analisadas', 'Pré-aprovadas', 'Oferta firme', 'Escolhidas', 'Emitidas'];

function indicator(name: (typeof INDICATOR_NAMES)[number], value: number): string {
  if (name.endsWith('Cents')) return formatBRL(value);
  if (name === 'approvalRate' || name === 'conversion') return `${(value * 100).toLocaleString('pt-BR', { maximumFractionDigits: 1 })}%`;
  return value.toLocaleString('pt-BR');
}

/** The chart data as one JSON block (not executed) that /console/assets/painel.js draws from. */
function chartData(d: Dashboard): string {
  const data = {
    weeks: d.range.weekStarts.map((w) => DAY.format(new Date(w))),
    received: { cur: d.weekly.cur.received, prev: d.weekly.prev.received },
    funnel: { labels: d.funnel.cur.map((s) => STAGES[s.stage] ?? `Etapa ${s.stage}`), cur: d.funnel.cur.map((s) => s.count), prev: d.funnel.prev.map((s) => s.count) },
    status: (['issued', 'open', 'rejected', 'closed'] as const).map((key) => ({
      label: { issued: 'Emitidas', open: 'Em aberto', rejected: 'Recusadas', closed: 'Encerradas' }[key],
      values: d.statusWeekly.map((w) => w[key]),
    })),
    mix: { labels: d.mix.map((m) => m.productName), values: d.mix.map((m) => m.count) },
  };
  // `<` escaped so that no product name can close the script element.
  return `<script type="application/json" id="painel-dados">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>`;
}

export function dashboardPage(d: Dashboard, period: { de: string; ate: string }, message?: string): string {
  const cards = INDICATOR_NAMES.map(
    (name) =>
      `<div class="cartao indicador"><p>${LABELS[name]}</p><p class="estado" data-indicador="${name}">${indicator(name, d.kpis.cur[name])}</p><p class="neutro">antes: ${indicator(name, d.kpis.prev[name])}</p></div>`,
  ).join('');
  const oldest = d.aging.oldest.map((p) => `<tr><td>${escape(p.name)}</td><td>${escape(p.document)}</td><td>${escape(p.status)}</td></tr>`).join('');
  return `${errorBox(message)}<form class="cartao filtros" method="get" action="/console/painel">
<label>De<input type="date" name="de" value="${escape(period.de)}"></label><label>Até (exclusive)<input type="date" name="ate" value="${escape(period.ate)}"></label>
<button class="primario" type="submit">Atualizar</button></form>
<p>Propostas criadas de ${DATE.format(new Date(d.range.from))} a ${DATE.format(new Date(d.range.to))}, comparadas ao período anterior de mesmo tamanho.</p>
<div class="indicadores">${cards}</div>
<section class="cartao"><h2>Recebidas por semana</h2><canvas id="grafico-semanal" role="img" aria-label="Propostas recebidas por semana"></canvas></section>
<section class="cartao"><h2>Funil</h2><canvas id="grafico-funil" role="img" aria-label="Funil de propostas"></canvas></section>
<section class="cartao"><h2>Situação por semana</h2><canvas id="grafico-status" role="img" aria-label="Situação das propostas por semana"></canvas></section>
<section class="cartao"><h2>Produtos</h2><canvas id="grafico-mix" role="img" aria-label="Propostas por produto"></canvas></section>
${oldest ? `<section class="cartao"><h2>Mais antigas em aberto</h2><table><thead><tr><th>Nome</th><th>Documento</th><th>Situação</th></tr></thead><tbody>${oldest}</tbody></table></section>` : ''}
${chartData(d)}`;
}
